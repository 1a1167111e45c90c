import type { Redis } from 'ioredis';
import { RedisLayout } from './redis-layout';

/** Every key of one generation, in chunks (SCAN: never blocks Redis the way KEYS would). */
export async function* scanGeneration(
  redis: Redis,
  layout: RedisLayout,
  name: string,
  generation: string,
): AsyncGenerator<string[]> {
  for await (const keys of redis.scanStream({ match: layout.generationPattern(name, generation), count: 1000 })) {
    if ((keys as string[]).length > 0) yield keys as string[];
  }
}

/** Deletes a generation no pointer names any more; UNLINK frees the memory in the background. */
export async function deleteGeneration(redis: Redis, layout: RedisLayout, name: string, generation: string): Promise<void> {
  for await (const keys of scanGeneration(redis, layout, name, generation)) await redis.unlink(...keys);
}
