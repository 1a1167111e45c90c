import { Subtree, nodeHash } from './merkle';
import { TILE_HEIGHT } from './tiles';

/**
 * Which complete subtrees a log keeps, and how any other is computed from
 * them. A log keeps its leaves and the subtrees of every fourth level (4, 8,
 * 12, ...), among them every level tlog-tiles serves (every eighth): one
 * stored hash per 16 of the level below, so the tree costs a writer one
 * extra row per 16 leaves. A subtree in between is folded from at most 8
 * kept ones beneath it, and a proof's subtrees at one kept level lie in at
 * most a few runs of them, so a proof is a few short range reads and about a
 * hundred hashes, whatever the tree's size.
 */
export const KEPT_LEVEL_STEP = TILE_HEIGHT / 2;

/** Whether a writer keeps the subtree (level 0, the leaves, are kept as leaves). */
export function isStoredLevel(level: number): boolean {
  return level > 0 && level % KEPT_LEVEL_STEP === 0;
}

/** A run of kept hashes at one kept level (0 for leaves): indexes [start, end). */
export interface StoredRange {
  level: number;
  start: number;
  end: number;
}

/** The kept level a subtree is folded from. */
function baseOf(level: number): number {
  return level - (level % KEPT_LEVEL_STEP);
}

/** The kept hashes the subtrees are computed from, as few runs as touch them (adjacent runs merged). */
export function storedRangesFor(subtrees: readonly Subtree[]): StoredRange[] {
  const byLevel = new Map<number, Array<[number, number]>>();
  for (const { level, index } of subtrees) {
    const base = baseOf(level);
    const width = 2 ** (level - base);
    const runs = byLevel.get(base) ?? [];
    runs.push([index * width, (index + 1) * width]);
    byLevel.set(base, runs);
  }
  const ranges: StoredRange[] = [];
  for (const [level, runs] of byLevel) {
    runs.sort((a, b) => a[0] - b[0]);
    let [start, end] = runs[0];
    for (const [s, e] of runs.slice(1)) {
      if (s <= end) end = Math.max(end, e);
      else {
        ranges.push({ level, start, end });
        [start, end] = [s, e];
      }
    }
    ranges.push({ level, start, end });
  }
  return ranges;
}

/**
 * The subtrees' hashes from the kept hashes `storedRangesFor` named, which
 * `kept(level, index)` returns (a leaf's hash at level 0).
 */
export function subtreeHashesFrom(subtrees: readonly Subtree[], kept: (level: number, index: number) => Buffer): Buffer[] {
  const fold = (level: number, index: number): Buffer => {
    if (level === baseOf(level)) return kept(level, index);
    return nodeHash(fold(level - 1, index * 2), fold(level - 1, index * 2 + 1));
  };
  return subtrees.map(({ level, index }) => fold(level, index));
}
