import type { LedgerLog, RecordedEvent } from '@ledger/event-store';
import { ParsedLeaf, computeEventHash, leafRecordedAt, parseLedgerLeaf, streamIdHash } from '@ledger/event-store';
import { NoteError, ProofError, leafHash, noteVerifier, parseNote, verifyInclusion } from '@ledger/transparency';
import { openCheckpoint } from './verify-log';
import { inclusionProof } from './proofs';

/**
 * A consent's audit bundle (decision 0058): its facts, each with the leaf it
 * was entered in the ledger's tree as, its leaf index and its inclusion
 * proof, all against one checkpoint, with the log's verifier key. Whoever
 * holds it checks, with neither the service nor the database, that each
 * fact is the one the ledger committed to before the checkpoint was signed.
 */
export interface AuditBundle {
  redecConsentId: string;
  /** The checkpoint as a signed note, with any witnesses' cosignatures. */
  checkpoint: string;
  verifierKey: string;
  events: BundledEvent[];
}

export interface BundledEvent {
  eventId: string;
  streamId: string;
  revision: number;
  type: string;
  recordedAt: number;
  /** The fact's data and metadata as stored: what its chain hash covers. */
  data: unknown;
  metadata: unknown;
  hash: string;
  previousHash: string | null;
  leafIndex: number;
  /** The leaf bytes, base64. */
  leaf: string;
  /** Base64 hashes, from the leaf up, against the bundle's checkpoint. */
  inclusionProof: string[];
}

/**
 * The bundle of these facts against a checkpoint that includes them all
 * (issued after they were read). Facts without a leaf (a store without the
 * tree) cannot be bundled.
 */
export async function auditBundle(
  log: LedgerLog,
  bundle: { redecConsentId: string; checkpoint: { size: number; note: string }; verifierKey: string; facts: readonly RecordedEvent[] },
): Promise<AuditBundle> {
  const { checkpoint, facts } = bundle;
  const leaves = new Map((await log.leavesOf(facts.map((f) => f.id))).map((l) => [l.eventId, l]));
  const events = await Promise.all(
    facts.map(async (fact): Promise<BundledEvent> => {
      const leaf = leaves.get(fact.id);
      if (leaf === undefined || leaf.leafIndex >= checkpoint.size) throw new Error(`event ${fact.id} is not in the tree of the checkpoint of size ${checkpoint.size}`);
      return {
        eventId: fact.id,
        streamId: fact.streamId,
        revision: fact.revision,
        type: fact.type,
        recordedAt: fact.metadata.recordedAt,
        data: fact.data,
        metadata: fact.metadata,
        hash: fact.integrity.hash,
        previousHash: fact.integrity.previousHash,
        leafIndex: leaf.leafIndex,
        leaf: leaf.leaf.toString('base64'),
        inclusionProof: (await inclusionProof(log, leaf.leafIndex, checkpoint.size)).map((h) => h.toString('base64')),
      };
    }),
  );
  return { redecConsentId: bundle.redecConsentId, checkpoint: checkpoint.note, verifierKey: bundle.verifierKey, events };
}

export interface BundleVerification {
  valid: boolean;
  redecConsentId: string | null;
  events: number;
  checkpointSize: number | null;
  /** Why not valid; null when valid. */
  reason: string | null;
}

/** A witness's cosignature check: throws (NoteError) when the note carries no valid cosignature of that witness. */
export type WitnessCheck = (checkpointNote: string) => void;

/**
 * Checks a bundle offline against the log's verifier key the auditor trusts
 * (`verifierKey`, not the one the bundle carries) and, for each witness
 * check given, that witness's cosignature: the checkpoint is signed by the
 * log; each fact hashes to its chain hash and, in its stream, links to the
 * bundle's fact before it; its leaf states exactly that fact; and its
 * inclusion proof leads from the leaf to the checkpoint's root. The
 * consent's own stream (the first fact's) must be whole from revision 0.
 */
export function verifyAuditBundle(bundle: unknown, trust: { verifierKey: string; witnesses?: readonly WitnessCheck[] }): BundleVerification {
  const counted = { redecConsentId: null as string | null, events: 0, checkpointSize: null as number | null };
  try {
    const { redecConsentId, checkpoint: note, events } = shapeOf(bundle);
    counted.redecConsentId = redecConsentId;
    counted.events = events.length;
    const log = noteVerifier(trust.verifierKey);
    const checkpoint = openCheckpoint(note, log.name, [log]);
    counted.checkpointSize = checkpoint.size;
    for (const witness of trust.witnesses ?? []) witness(note);
    if (events.length === 0) throw new ProofError('the bundle has no event');
    const ownStream = events[0].streamId;
    const heads = new Map<string, { revision: number; hash: string }>();
    for (const event of events) {
      const at = `event ${event.eventId}`;
      const computed = computeEventHash(event.previousHash, { streamId: event.streamId, revision: event.revision, id: event.eventId, type: event.type, data: event.data, metadata: event.metadata as never });
      if (computed !== event.hash) throw new ProofError(`${at}: its content does not hash to its chain hash`);
      const head = heads.get(event.streamId);
      if (event.streamId === ownStream && event.revision !== (head === undefined ? 0 : head.revision + 1)) throw new ProofError(`${at}: the consent's stream is not whole (revision ${event.revision})`);
      if (head !== undefined && event.revision === head.revision + 1 && event.previousHash !== head.hash) throw new ProofError(`${at}: it does not link to the event before it`);
      heads.set(event.streamId, { revision: event.revision, hash: event.hash });
      const leaf = Buffer.from(event.leaf, 'base64');
      const stated = leafFields(leaf, at);
      const recordedAt = leafRecordedAt((event.metadata as { recordedAt?: unknown } | null)?.recordedAt);
      if (
        stated.streamIdHash !== streamIdHash(event.streamId) ||
        stated.revision !== event.revision ||
        stated.eventId !== event.eventId ||
        stated.type !== event.type ||
        stated.recordedAt !== recordedAt ||
        stated.hash !== event.hash
      ) {
        throw new ProofError(`${at}: its leaf states another event`);
      }
      verifyInclusion(event.leafIndex, checkpoint.size, leafHash(leaf), event.inclusionProof.map((h) => Buffer.from(h, 'base64')), checkpoint.root);
    }
    return { valid: true, ...counted, reason: null };
  } catch (error) {
    if (!(error instanceof ProofError || error instanceof NoteError || error instanceof BundleShapeError)) throw error;
    return { valid: false, ...counted, reason: error.message };
  }
}

class BundleShapeError extends Error {}

function leafFields(leaf: Buffer, at: string): ParsedLeaf {
  try {
    return parseLedgerLeaf(leaf);
  } catch {
    throw new ProofError(`${at}: its leaf is not a ledger leaf`);
  }
}

/** The bundle's parts, or a BundleShapeError naming what is not as a bundle has it. */
function shapeOf(bundle: unknown): AuditBundle {
  const b = bundle as Partial<AuditBundle> | null;
  if (b === null || typeof b !== 'object') throw new BundleShapeError('not an audit bundle');
  if (typeof b.redecConsentId !== 'string' || typeof b.checkpoint !== 'string' || !Array.isArray(b.events)) throw new BundleShapeError('an audit bundle has a redecConsentId, a checkpoint and events');
  for (const e of b.events as unknown[]) {
    const event = e as Partial<BundledEvent> | null;
    if (
      event === null ||
      typeof event !== 'object' ||
      typeof event.eventId !== 'string' ||
      typeof event.streamId !== 'string' ||
      !Number.isSafeInteger(event.revision) ||
      typeof event.type !== 'string' ||
      typeof event.hash !== 'string' ||
      !(event.previousHash === null || typeof event.previousHash === 'string') ||
      !Number.isSafeInteger(event.leafIndex) ||
      typeof event.leaf !== 'string' ||
      !Array.isArray(event.inclusionProof) ||
      !event.inclusionProof.every((h) => typeof h === 'string')
    ) {
      throw new BundleShapeError('an event of the bundle lacks a field or has one of the wrong type');
    }
  }
  parseNote(b.checkpoint);
  return b as AuditBundle;
}
