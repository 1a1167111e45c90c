import { EMPTY_ROOT, Subtree, foldSubtrees, nodeHash, subtreesOf } from './merkle';

/**
 * The right edge of a growing tree: the hashes of the complete subtrees a
 * tree of `size` leaves is made of (`subtreesOf(0, size)`, largest first).
 * It is all a writer needs to append leaves and to know the root, so an
 * append costs O(1) hashes amortized and no read. Appending reports the
 * complete subtrees each new leaf finishes, so the writer can keep those a
 * proof will need. Appends change the range in place (a writer enters a leaf
 * per event, and a copy each time is what it would cost most); `clone` keeps
 * one as it stands.
 */
export class CompactRange {
  private constructor(
    private count: number,
    private readonly hashes: Buffer[],
  ) {}

  static empty(): CompactRange {
    return new CompactRange(0, []);
  }

  /** The range of a tree of `size` from the hashes of `subtreesOf(0, size)`, in that order. */
  static of(size: number, hashes: readonly Buffer[]): CompactRange {
    const expected = subtreesOf(0, size).length;
    if (hashes.length !== expected) throw new RangeError(`a tree of size ${size} is ${expected} complete subtrees, not ${hashes.length}`);
    return new CompactRange(size, [...hashes]);
  }

  get size(): number {
    return this.count;
  }

  clone(): CompactRange {
    return new CompactRange(this.count, [...this.hashes]);
  }

  root(): Buffer {
    return this.count === 0 ? EMPTY_ROOT : foldSubtrees(this.hashes);
  }

  /** Appends a leaf by its leaf hash; `finished` hears each complete subtree of level 1 and up it finishes, with its hash. */
  append(leafHash: Buffer, finished?: (subtree: Subtree, hash: Buffer) => void): void {
    const size = this.count;
    let hash = leafHash;
    let level = 0;
    // Each trailing one bit of the old size is a subtree the new leaf completes a sibling of.
    for (let bits = size; bits % 2 === 1; bits = Math.floor(bits / 2)) {
      hash = nodeHash(this.hashes.pop() as Buffer, hash);
      level += 1;
      finished?.({ level, index: Math.floor(size / 2 ** level) }, hash);
    }
    this.hashes.push(hash);
    this.count = size + 1;
  }
}
