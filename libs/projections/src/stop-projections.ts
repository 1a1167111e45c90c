import { closeRedis, type RedisClient } from '@ledger/platform';
import type { ProjectionRunner } from './projection-runner';

/**
 * Stops a runner that follows the store, then closes its Redis connection.
 * With Redis unreachable, the batch in flight and quit() would wait for it
 * forever (ioredis keeps commands queued while it reconnects); past
 * `graceMs`, or at once while Redis is out of reach, they are abandoned and
 * the connection dropped. Nothing is lost: the next start redoes the batch
 * from the checkpoint.
 */
export async function stopProjections(runner: ProjectionRunner, redis: RedisClient, graceMs = 5_000): Promise<void> {
  await closeRedis(redis, graceMs, runner.stop());
}
