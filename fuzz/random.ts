/**
 * The harness's only source of randomness: a seeded generator (mulberry32),
 * one independent stream per request, so request N of a seed is the same
 * whatever else the run sent, and can be replayed alone.
 */
export interface Random {
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T;
}

export function randomFor(seed: number, stream: number): Random {
  let state = mix(mix(seed >>> 0) ^ mix(stream >>> 0 || 0x9e3779b9));
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)];
    },
    weighted: (choices) => {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [choice, weight] of choices) {
        roll -= weight;
        if (roll < 0) return choice;
      }
      return choices[choices.length - 1][0];
    },
  };
}

/** A 32-bit finalizer (murmur3's), so nearby seeds and streams give unrelated sequences. */
function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
