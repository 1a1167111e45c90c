import { RedisLayout } from './redis-layout';
import { scanKeys, type RedisClient } from '@ledger/platform';

/**
 * Keys SCAN visits per step, and at most UNLINKed per command: a step holds
 * Redis about a millisecond, so requests wait no longer behind a deletion.
 * A larger step is no faster: Redis's time goes to visiting the keys.
 */
const CHUNK = 1000;

/** Every key of one generation, in chunks (SCAN: never blocks Redis the way KEYS would). */
export function scanGeneration(redis: RedisClient, layout: RedisLayout, name: string, generation: string): AsyncGenerator<string[]> {
  return scanKeys(redis, layout.generationPattern(name, generation), CHUNK);
}

/** A generation of a projection that no pointer names any more. */
export interface RetiredGeneration {
  name: string;
  generation: string;
}

/**
 * Deletes generations no pointer names any more: their keys are found by
 * SCAN and UNLINKed, which frees the memory in the background. One
 * generation's keys Redis finds by its pattern; several are found in one
 * walk of the read model's keys, filtered here, rather than one walk of the
 * whole keyspace each (a rebuild retires every projection's generation at
 * once). Also deletes the key sets a release before decision 0085 kept.
 */
export async function deleteGenerations(redis: RedisClient, layout: RedisLayout, retired: readonly RetiredGeneration[]): Promise<void> {
  if (retired.length === 0) return;
  const bases = retired.map(({ name, generation }) => `${layout.generationBase(name, generation)}:`);
  const match = retired.length === 1 ? layout.generationPattern(retired[0].name, retired[0].generation) : layout.modelsPattern();
  for await (const keys of scanKeys(redis, match, CHUNK)) {
    // One UNLINK per generation: on a Redis Cluster, each projection's keys are in a slot of their own (decision 0091).
    for (const base of bases) {
      const retiredKeys = keys.filter((key) => key.startsWith(base));
      if (retiredKeys.length > 0) await redis.unlink(...retiredKeys);
    }
  }
  for (const { name, generation } of retired) await redis.unlink(layout.legacyKeySet(name, generation));
}
