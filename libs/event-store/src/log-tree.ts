import { CompactRange, StoredRange, Subtree, isStoredLevel, leafHash, storedRangesFor, subtreeHashesFrom, subtreesOf } from '@ledger/transparency';

/**
 * What the SQLite and PostgreSQL stores share of keeping the ledger's tree
 * (decision 0058): integrating the leaves appenders stored into the tree,
 * and computing any complete subtree from the hashes kept (leaves, and every
 * fourth level).
 */

/** A kept subtree hash integration stores. */
export interface KeptSubtree {
  level: number;
  index: number;
  hash: Buffer;
}

/** Kept hashes as read, by level then index (level 0: leaf hashes). */
export type KeptHashes = Map<number, Map<number, Buffer>>;

/**
 * Integrates leaves into the tree whose compact range is `range` (changed in
 * place): hashes each, in leaf order, and returns the kept subtrees they
 * finish, for the log to store with its new size.
 */
export function integrateLeaves(range: CompactRange, leaves: readonly Buffer[]): KeptSubtree[] {
  const finished: KeptSubtree[] = [];
  const keep = (subtree: Subtree, hash: Buffer) => {
    if (isStoredLevel(subtree.level)) finished.push({ ...subtree, hash });
  };
  for (const leaf of leaves) range.append(leafHash(leaf), keep);
  return finished;
}

/** Leaves integrated per transaction: each holds the writers back (SQLite) or the event loop (both) a few milliseconds. */
export const INTEGRATION_BATCH = 4_096;

/** The kept hashes to read for these subtrees. */
export function keptRangesFor(subtrees: readonly Subtree[]): StoredRange[] {
  return subtrees.length === 0 ? [] : storedRangesFor(subtrees);
}

/** The subtrees' hashes from the kept hashes read for `keptRangesFor(subtrees)`. */
export function foldKept(subtrees: readonly Subtree[], kept: KeptHashes): Buffer[] {
  return subtreeHashesFrom(subtrees, (level, index) => {
    const hash = kept.get(level)?.get(index);
    // Every kept hash below the tree's size is written with the leaf that finishes it: one missing was removed.
    if (hash === undefined) throw new Error(`the ledger's tree has no ${level === 0 ? 'leaf' : `level ${level} hash`} at index ${index}`);
    return hash;
  });
}

/** Adds rows read for one kept range to `kept`. */
export function addKept(kept: KeptHashes, level: number, rows: Iterable<[number, Buffer]>): void {
  let atLevel = kept.get(level);
  if (atLevel === undefined) kept.set(level, (atLevel = new Map()));
  for (const [index, hash] of rows) atLevel.set(index, level === 0 ? leafHash(hash) : hash);
}

/** The subtrees whose hashes make a compact range of `size`. */
export function rangeSubtrees(size: number): Subtree[] {
  return subtreesOf(0, size);
}

/** How far a store's build of the tree over events written before it has come: events given their leaves. */
export interface LogBuildProgress {
  entered: number;
  remaining: number;
}
