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
 * witness that last cosigned another, smaller size (a conflict: another
 * process of the service, or this log's record of cosignatures behind) is
 * asked once more from its size; one that cosigned a larger one needs
 * nothing from this checkpoint.
 */
export async function witnessCheckpoint(log: LedgerLog, checkpoint: StoredCheckpoint, witness: WitnessEndpoint, fetchFn?: typeof fetch): Promise<WitnessOutcome> {
  const named = { witness: witness.verifierKey };
  let oldSize = await log.lastCosignedSize(witness.verifierKey);
  if (oldSize >= checkpoint.size && oldSize > 0) return { ...named, outcome: 'already', size: oldSize };
  for (let attempt = 0; ; attempt += 1) {
    const proof = oldSize === 0 || oldSize === checkpoint.size ? [] : await consistencyProof(log, oldSize, checkpoint.size);
    const answer = await requestCosignature(witness, { oldSize, proof, checkpointNote: checkpoint.note }, fetchFn);
    if (answer.outcome === 'cosigned') {
      await log.addCosignature({ size: checkpoint.size, witness: witness.verifierKey, line: signatureLine(answer.signature), cosignedAt: answer.timestamp });
      return { ...named, outcome: 'cosigned', size: checkpoint.size };
    }
    if (answer.outcome === 'conflict' && answer.witnessSize > checkpoint.size) {
      // Another process of the service had a later checkpoint cosigned first: nothing to ask for this one.
      // A witness that saw more leaves than this log holds saw another log's history: a fork.
      if (answer.witnessSize <= (await log.size())) return { ...named, outcome: 'already', size: answer.witnessSize };
      return { ...named, ...answer };
    }
    if (answer.outcome === 'conflict' && attempt === 0 && answer.witnessSize !== oldSize) {
      oldSize = answer.witnessSize;
      continue;
    }
    return { ...named, ...answer };
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
