import { EMPTY_ROOT, Subtree, foldSubtrees, nodeHash, subtreesOf } from './merkle';

/**
 * The right edge of a growing tree: the hashes of the complete subtrees a
 * tree of `size` leaves is made of (`subtreesOf(0, size)`, largest first).
 * It is all a writer needs to append leaves and to know the root, so an
 * append costs O(1) hashes amortized and no read. Appending returns the
 * complete subtrees the new leaves finished, so the writer can keep those a
 * proof will need.
 */
export class CompactRange {
  private constructor(
    readonly size: number,
    private readonly hashes: readonly Buffer[],
  ) {}

  static readonly empty = new CompactRange(0, []);

  /** The range of a tree of `size` from the hashes of `subtreesOf(0, size)`, in that order. */
  static of(size: number, hashes: readonly Buffer[]): CompactRange {
    if (hashes.length !== subtreesOf(0, size).length) throw new RangeError(`a tree of size ${size} is ${subtreesOf(0, size).length} complete subtrees, not ${hashes.length}`);
    return new CompactRange(size, hashes);
  }

  root(): Buffer {
    return this.size === 0 ? EMPTY_ROOT : foldSubtrees(this.hashes);
  }

  /**
   * The range after appending leaves with these leaf hashes; `finished`
   * hears each complete subtree of level 1 and up that they finish, with its hash.
   */
  append(leafHashes: readonly Buffer[], finished?: (subtree: Subtree, hash: Buffer) => void): CompactRange {
    const hashes = [...this.hashes];
    let size = this.size;
    for (const leaf of leafHashes) {
      let hash = leaf;
      let level = 0;
      // Each trailing one bit of the old size is a subtree the new leaf completes a sibling of.
      for (let bits = size; bits % 2 === 1; bits = Math.floor(bits / 2)) {
        hash = nodeHash(hashes.pop() as Buffer, hash);
        level += 1;
        finished?.({ level, index: Math.floor(size / 2 ** level) }, hash);
      }
      hashes.push(hash);
      size += 1;
    }
    return new CompactRange(size, hashes);
  }
}
