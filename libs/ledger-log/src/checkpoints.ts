import type { LedgerLog, StoredCheckpoint } from '@ledger/event-store';
import { checkpointText, signNote } from '@ledger/transparency';
import type { LogIdentity } from './log-identity';
import { rootAt } from './proofs';

/**
 * Integrates the leaves appended since the last checkpoint, then issues a
 * checkpoint of the tree when it has grown since the latest one (or none
 * was issued yet), and keeps it; otherwise the latest stands. Several
 * processes may issue at once: the first checkpoint kept for a size is the
 * one every reader gets.
 */
export async function issueCheckpoint(log: LedgerLog, identity: LogIdentity, now: number): Promise<StoredCheckpoint> {
  const [size, latest] = await Promise.all([log.integrate(), log.latestCheckpoint()]);
  if (latest !== undefined && latest.size >= size) return latest;
  const root = await rootAt(log, size);
  const note = signNote(checkpointText({ origin: identity.origin, size, root }), [identity.signer]);
  const checkpoint = { size, root, note, issuedAt: now };
  if (await log.addCheckpoint(checkpoint)) return checkpoint;
  return (await log.latestCheckpoint()) as StoredCheckpoint;
}

/**
 * The checkpoint's note with the cosignatures witnesses gave it: their
 * lines follow the log's signature, as a reader who trusts a witness wants
 * it (readers that do not know a witness's key skip its line).
 */
export async function cosignedNote(log: LedgerLog, checkpoint: StoredCheckpoint): Promise<string> {
  const cosignatures = await log.cosignatures(checkpoint.size);
  return checkpoint.note + cosignatures.map((c) => c.line).join('');
}
