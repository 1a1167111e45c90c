import { sha256Hex } from '@ledger/platform';
import type { RecordedEvent } from './event-store.port';

/**
 * The record each event is entered in the ledger's Merkle tree as (decision
 * 0058). Its bytes are stored beside the event when it is appended and are
 * what the leaf hash covers, so a verifier hashes the stored bytes and never
 * re-serializes anything. UTF-8 text, seven lines each ending in "\n":
 *
 *     consent-ledger/leaf/v1
 *     <SHA-256 of the stream id, lowercase hex>
 *     <revision, decimal>
 *     <event id, as a JSON string literal>
 *     <event type, as a JSON string literal>
 *     <recordedAt, epoch milliseconds, decimal>
 *     <the event's chain hash, lowercase hex>
 *
 * The chain hash covers the event's data and metadata (integrity.ts), so the
 * leaf commits to the whole event without holding any of it. The stream id is
 * hashed because stream ids carry tenant ids and integrators' references;
 * the event id is a random uuid and the type a name from this code. Nothing
 * here identifies a person, so destroying a customer's key (erasure) leaves
 * every leaf and every proof as valid as before.
 */
export const LEAF_VERSION = 'consent-ledger/leaf/v1';

export interface LeafContent {
  streamId: string;
  revision: number;
  eventId: string;
  type: string;
  recordedAt: number;
  /** The event's chain hash (`integrity.hash`). */
  hash: string;
}

/** The leaf's fields as written; `streamIdHash` stands for the stream id. */
export interface ParsedLeaf extends Omit<LeafContent, 'streamId'> {
  streamIdHash: string;
}

export function streamIdHash(streamId: string): string {
  return sha256Hex(streamId);
}

export function ledgerLeaf({ streamId, revision, eventId, type, recordedAt, hash }: LeafContent): Buffer {
  return leafOfStream(leafPrefix(streamId), revision, eventId, type, recordedAt, hash);
}

/** The lines every leaf of a stream's events starts with: a writer computes them once per append. */
export function leafPrefix(streamId: string): string {
  return `${LEAF_VERSION}\n${streamIdHash(streamId)}\n`;
}

/** Streams' leaf prefixes a writer keeps at most; beyond it the cache starts afresh. */
const MAX_CACHED_PREFIXES = 10_000;

/** The `leafPrefix` of streams a writer appends to, each hashed once while it is kept. */
export class LeafPrefixes {
  private readonly prefixes = new Map<string, string>();

  of(streamId: string): string {
    let prefix = this.prefixes.get(streamId);
    if (prefix === undefined) {
      if (this.prefixes.size >= MAX_CACHED_PREFIXES) this.prefixes.clear();
      prefix = leafPrefix(streamId);
      this.prefixes.set(streamId, prefix);
    }
    return prefix;
  }
}

/** The leaf of one of the stream's events, after the stream's `leafPrefix`. */
export function leafOfStream(prefix: string, revision: number, eventId: string, type: string, recordedAt: number, hash: string): Buffer {
  return Buffer.from(leafTextOfStream(prefix, revision, eventId, type, recordedAt, hash), 'utf8');
}

/** The same leaf as the text it is the UTF-8 bytes of: what PostgreSQL's writer sends, so a leaf is not turned into bytes and back. */
export function leafTextOfStream(prefix: string, revision: number, eventId: string, type: string, recordedAt: number, hash: string): string {
  return `${prefix}${revision}\n${JSON.stringify(eventId)}\n${JSON.stringify(type)}\n${recordedAt}\n${hash}\n`;
}

/** The leaf an event makes, from the event as read: what a verifier recomputes. */
export function leafOfEvent(event: RecordedEvent): Buffer {
  return ledgerLeaf({
    streamId: event.streamId,
    revision: event.revision,
    eventId: event.id,
    type: event.type,
    recordedAt: leafRecordedAt(event.metadata.recordedAt),
    hash: event.integrity.hash,
  });
}

/** The leaf a stored event's columns make (`recordedAt` as its metadata holds it), the stream's prefix from `prefixes`. */
export function leafOfColumns(prefixes: LeafPrefixes, streamId: string, revision: number, eventId: string, type: string, recordedAt: unknown, hash: string): Buffer {
  return leafOfStream(prefixes.of(streamId), revision, eventId, type, leafRecordedAt(recordedAt), hash);
}

/** The recordedAt a leaf states for an event's metadata.recordedAt: 0 for metadata without a whole, non-negative one. */
export function leafRecordedAt(recordedAt: unknown): number {
  return typeof recordedAt === 'number' && Number.isSafeInteger(recordedAt) && recordedAt >= 0 ? recordedAt : 0;
}

/** The fields of leaf bytes, or an Error saying why they are not a v1 leaf. */
export function parseLedgerLeaf(leaf: Uint8Array): ParsedLeaf {
  const lines = Buffer.from(leaf).toString('utf8').split('\n');
  const [version, stream, revision, eventId, type, recordedAt, hash, end] = lines;
  if (lines.length !== 8 || end !== '' || version !== LEAF_VERSION) throw new Error(`not a ${LEAF_VERSION} leaf`);
  if (!/^[0-9a-f]{64}$/.test(stream) || !/^[0-9a-f]{64}$/.test(hash) || !/^(0|[1-9][0-9]*)$/.test(revision) || !/^(0|[1-9][0-9]*)$/.test(recordedAt)) {
    throw new Error(`not a ${LEAF_VERSION} leaf`);
  }
  return { streamIdHash: stream, revision: Number(revision), eventId: JSON.parse(eventId), type: JSON.parse(type), recordedAt: Number(recordedAt), hash };
}
