import { CompactRange, StoredRange, Subtree, isStoredLevel, leafHash, storedRangesFor, subtreeHashesFrom, subtreesOf } from '@ledger/transparency';

/**
 * What the SQLite and PostgreSQL stores share of keeping the ledger's tree
 * (decision 0058): entering leaves as events are appended, and computing any
 * complete subtree from the hashes kept (leaves, and every fourth level).
 */

/** A kept subtree hash a writer stores. */
export interface KeptSubtree {
  level: number;
  index: number;
  hash: Buffer;
}

/** Kept hashes as read, by level then index (level 0: leaf hashes). */
export type KeptHashes = Map<number, Map<number, Buffer>>;

/** Enters leaves in the tree in the order a writer appends them. */
export class TreeAppender {
  /** The kept subtrees the entered leaves finished, for the writer to store. */
  readonly finished: KeptSubtree[] = [];
  private readonly keep = (subtree: Subtree, hash: Buffer) => {
    if (isStoredLevel(subtree.level)) this.finished.push({ ...subtree, hash });
  };

  constructor(private range: CompactRange) {}

  /** The number of leaves. */
  get size(): number {
    return this.range.size;
  }

  /** Enters a leaf; returns its leaf index. */
  enter(leaf: Buffer): number {
    const leafIndex = this.range.size;
    this.range.append(leafHash(leaf), this.keep);
    return leafIndex;
  }

  /** Where it stands, for `restore` when the append that follows is undone (a savepoint rolled back). */
  mark(): { range: CompactRange; finished: number } {
    return { range: this.range.clone(), finished: this.finished.length };
  }

  restore(mark: { range: CompactRange; finished: number }): void {
    this.range = mark.range;
    this.finished.length = mark.finished;
  }
}

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

/** How far a store's build of the tree over events written before it has come. */
export interface LogBuildProgress {
  entered: number;
  remaining: number;
}
