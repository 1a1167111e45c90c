import type { LedgerLog } from '@ledger/event-store';
import { ProofItem, Subtree, assembleProof, consistencyProofPlan, inclusionProofPlan, rootPlan, subtreesNeeded } from '@ledger/transparency';

/**
 * Proofs over the ledger's tree, from the log's kept hashes: each plan names
 * the complete subtrees it needs, read at once (decision 0057).
 */

async function proofOf(log: LedgerLog, items: readonly ProofItem[]): Promise<Buffer[]> {
  const needed = subtreesNeeded(items);
  const hashes = await log.subtreeHashes(needed);
  const byKey = new Map(needed.map((s, i) => [keyOf(s), hashes[i]]));
  return assembleProof(items, (s) => byKey.get(keyOf(s)) as Buffer);
}

function keyOf({ level, index }: Subtree): string {
  return `${level}/${index}`;
}

/** The root of the tree's first `size` leaves. */
export async function rootAt(log: LedgerLog, size: number): Promise<Buffer> {
  const [root] = await proofOf(log, [rootPlan(size)]);
  return root;
}

export function inclusionProof(log: LedgerLog, leafIndex: number, size: number): Promise<Buffer[]> {
  return proofOf(log, inclusionProofPlan(leafIndex, size));
}

export function consistencyProof(log: LedgerLog, size1: number, size2: number): Promise<Buffer[]> {
  return proofOf(log, consistencyProofPlan(size1, size2));
}
