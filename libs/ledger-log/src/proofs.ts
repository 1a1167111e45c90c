import type { LedgerLog } from '@ledger/event-store';
import { ProofItem, Subtree, Tile, assembleProof, consistencyProofPlan, inclusionProofPlan, rootPlan, subtreesNeeded, tileSpan, tileWidthAt } from '@ledger/transparency';

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

/**
 * The hashes of a tlog-tiles hash tile of a tree of `size`, concatenated, or
 * undefined when that tree has no such tile (a full tile once the tree
 * covers it; a partial one only at the width the tree has).
 */
export async function hashTile(log: LedgerLog, tile: Tile, size: number): Promise<Buffer | undefined> {
  if (tileWidthAt(tile.level, tile.index, size) !== tile.width) return undefined;
  const { level, start, end } = tileSpan(tile);
  const subtrees = Array.from({ length: end - start }, (_, i) => ({ level, index: start + i }));
  return Buffer.concat(await log.subtreeHashes(subtrees));
}
