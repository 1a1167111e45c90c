import type { LedgerLog, StoredCheckpoint } from '@ledger/event-store';
import { CosignatureOutcome, NoteError, WitnessEndpoint, cosignatureVerifier, parseNote, requestCosignature, signatureLine } from '@ledger/transparency';
import { consistencyProof } from './proofs';

/** What became of sending a checkpoint to one witness. */
export type WitnessOutcome = { witness: string } & (
  | { outcome: 'cosigned'; size: number }
  | { outcome: 'already'; size: number }
  | Exclude<CosignatureOutcome, { outcome: 'cosigned' }>
);

/**
 * Sends a checkpoint to a witness (C2SP tlog-witness), with a consistency
 * proof from the last checkpoint it cosigned, and keeps its cosignature. A
 * witness that last cosigned another size (a conflict: another process of
 * the service was first, or this log's record of cosignatures is behind) is
 * asked once more, from its size: with this checkpoint when the witness's is
 * smaller, with the log's latest when it is larger. Either way the witness
 * checks a consistency proof from what it cosigned, so a fork of what it saw
 * is refused, never taken for a race. A witness that cosigned more leaves
 * than any checkpoint of this log holds saw another history: a conflict.
 */
export async function witnessCheckpoint(log: LedgerLog, checkpoint: StoredCheckpoint, witness: WitnessEndpoint, fetchFn?: typeof fetch): Promise<WitnessOutcome> {
  const named = { witness: witness.verifierKey };
  let oldSize = await log.lastCosignedSize(witness.verifierKey);
  if (oldSize >= checkpoint.size && oldSize > 0) return { ...named, outcome: 'already', size: oldSize };
  let asked = checkpoint;
  for (let attempt = 0; ; attempt += 1) {
    const proof = oldSize === 0 || oldSize === asked.size ? [] : await consistencyProof(log, oldSize, asked.size);
    const answer = await requestCosignature(witness, { oldSize, proof, checkpointNote: asked.note }, fetchFn);
    if (answer.outcome === 'cosigned') {
      await log.addCosignature({ size: asked.size, witness: witness.verifierKey, line: signatureLine(answer.signature), cosignedAt: answer.timestamp });
      return { ...named, outcome: 'cosigned', size: asked.size };
    }
    if (answer.outcome !== 'conflict' || attempt > 0 || answer.witnessSize === oldSize) return { ...named, ...answer };
    if (answer.witnessSize > asked.size) {
      const latest = await log.latestCheckpoint();
      if (latest === undefined || latest.size < answer.witnessSize) return { ...named, ...answer };
      asked = latest;
    }
    oldSize = answer.witnessSize;
  }
}

/**
 * A check that a checkpoint note carries a valid cosignature of the witness
 * with this verifier key (for verify-bundle's `--witness-vkey`).
 */
export function witnessCheck(verifierKey: string): (checkpointNote: string) => void {
  const verifier = cosignatureVerifier(verifierKey);
  return (note) => {
    const { text, signatures } = parseNote(note);
    const cosignature = signatures.find((s) => s.name === verifier.name && s.keyId.equals(verifier.keyId));
    if (cosignature === undefined) throw new NoteError(`the checkpoint has no cosignature of the witness ${verifier.name}`);
    verifier.verify(text, cosignature);
  };
}
