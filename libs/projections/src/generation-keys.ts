import type { Redis } from 'ioredis';
import { RedisLayout } from './redis-layout';

/**
 * Keys SCAN visits per step, and at most UNLINKed per command: a step holds
 * Redis about a millisecond, so requests wait no longer behind a deletion.
 * A larger step is no faster: Redis's time goes to visiting the keys.
 */
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
 * Deletes a generation no pointer names any more: its keys are found by SCAN
 * (a pattern of the generation's base, matched by Redis) and UNLINKed, which
 * frees the memory in the background. Also deletes the key set a release
 * before decision 0085 kept for the generation, if it has one.
 */
export async function deleteGeneration(redis: Redis, layout: RedisLayout, name: string, generation: string): Promise<void> {
  for await (const keys of scanGeneration(redis, layout, name, generation)) await redis.unlink(...keys);
  await redis.unlink(layout.legacyKeySet(name, generation));
}
