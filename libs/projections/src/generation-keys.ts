import type { Redis } from 'ioredis';
import { RedisLayout } from './redis-layout';

/** Keys per SSCAN step and per UNLINK. */
const CHUNK = 1000;

/** Every key of one generation, in chunks (SCAN: never blocks Redis the way KEYS would). */
export async function* scanGeneration(
  redis: Redis,
  layout: RedisLayout,
  name: string,
  generation: string,
): AsyncGenerator<string[]> {
  for await (const keys of redis.scanStream({ match: layout.generationPattern(name, generation), count: CHUNK })) {
    if ((keys as string[]).length > 0) yield keys as string[];
  }
}

/**
 * Deletes a generation no pointer names any more; UNLINK frees the memory in
 * the background. A tracked generation lists its keys in its key set, so only
 * they are visited; an untracked one (written in part by a release before
 * decision 0047) is found by SCAN, which walks the whole keyspace.
 */
export async function deleteGeneration(redis: Redis, layout: RedisLayout, name: string, generation: string, tracked: boolean): Promise<void> {
  const keySet = layout.keySet(name, generation);
  if (tracked) {
    const base = layout.generationBase(name, generation);
    for await (const suffixes of redis.sscanStream(keySet, { count: CHUNK })) {
      if ((suffixes as string[]).length > 0) await redis.unlink(...(suffixes as string[]).map((suffix) => base + suffix));
    }
  } else {
    for await (const keys of scanGeneration(redis, layout, name, generation)) await redis.unlink(...keys);
  }
  await redis.unlink(keySet);
}
