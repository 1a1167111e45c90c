import { CompactRange } from './compact-range';
import { EMPTY_ROOT, Subtree, leafHash, nodeHash, subtreesOf } from './merkle';
import { isStoredLevel, storedRangesFor, subtreeHashesFrom } from './stored-subtrees';

/** RFC 6962 MTH from its definition. */
function mth(hashes: readonly Buffer[]): Buffer {
  if (hashes.length === 0) return EMPTY_ROOT;
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(mth(hashes.slice(0, k)), mth(hashes.slice(k)));
}

const leaves = Array.from({ length: 1100 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
const subtreeHash = ({ level, index }: Subtree) => mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level));

describe('CompactRange', () => {
  it('has the root of every tree size as it grows, and reports each complete subtree a leaf finishes', () => {
    const range = CompactRange.empty();
    const finished: Array<Subtree & { hash: Buffer }> = [];
    expect(range.root().equals(EMPTY_ROOT)).toBe(true);
    leaves.forEach((leaf, i) => {
      range.append(leaf, (subtree, hash) => finished.push({ ...subtree, hash }));
      expect(range.size).toBe(i + 1);
      expect(range.root().equals(mth(leaves.slice(0, i + 1)))).toBe(true);
    });
    // Every complete subtree of level 1 and up, each once, with its hash.
    const expected = [];
    for (let level = 1; 2 ** level <= leaves.length; level += 1) for (let index = 0; (index + 1) * 2 ** level <= leaves.length; index += 1) expected.push(`${level}/${index}`);
    expect(finished.map((s) => `${s.level}/${s.index}`).sort()).toEqual(expected.sort());
    for (const subtree of finished) expect(subtree.hash.equals(subtreeHash(subtree))).toBe(true);
  });

  it('starts from the subtrees of a size, and keeps a clone apart from the range it was taken from', () => {
    const range = CompactRange.of(600, subtreesOf(0, 600).map(subtreeHash));
    const kept = range.clone();
    for (const leaf of leaves.slice(600, 700)) range.append(leaf);
    expect(range.root().equals(mth(leaves.slice(0, 700)))).toBe(true);
    expect(kept.size).toBe(600);
    expect(kept.root().equals(mth(leaves.slice(0, 600)))).toBe(true);
    expect(() => CompactRange.of(600, [leaves[0]])).toThrow(RangeError);
  });
});

describe('kept subtrees', () => {
  it('keeps leaves and every fourth level only, among them every level a hash tile holds', () => {
    expect([0, 1, 3, 4, 7, 8, 9, 12, 15, 16, 24].filter(isStoredLevel)).toEqual([4, 8, 12, 16, 24]);
  });

  it('computes any complete subtree from the kept hashes it names, in few runs', () => {
    // Kept: the leaves (level 0), level 4 and level 8 (indexes 0..3 of 1,024 leaves); level 12 needs 4,096.
    const kept = (level: number, index: number) => {
      if (level !== 0 && level !== 4 && level !== 8) throw new Error(`level ${level} is not kept`);
      return subtreeHash({ level, index });
    };
    const subtrees: Subtree[] = [
      { level: 0, index: 5 },
      { level: 3, index: 2 },
      { level: 7, index: 1 },
      { level: 8, index: 3 },
      { level: 9, index: 1 },
      { level: 10, index: 0 },
    ];
    expect(subtreeHashesFrom(subtrees, kept).map((h) => h.toString('hex'))).toEqual(subtrees.map((s) => subtreeHash(s).toString('hex')));
    expect(storedRangesFor(subtrees)).toEqual([
      { level: 0, start: 5, end: 6 },
      { level: 0, start: 16, end: 24 },
      { level: 4, start: 8, end: 16 },
      { level: 8, start: 0, end: 4 },
    ]);
  });
});
