import { Redis, RedisOptions } from 'ioredis';
import { settlesWithin } from './settles-within';

/**
 * One factory for every Redis connection. BullMQ requires
 * `maxRetriesPerRequest: null` on the connections its workers block on, so
 * a worker waits for Redis to come back instead of failing its commands;
 * the read model uses the same setting so that a Redis restart delays
 * projection writes rather than dropping them.
 */
export function createRedis(url: string, name: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 6), 2_000),
    ...extra,
  });
}

/**
 * Sends a connection's errors (one for each failed reconnection while Redis
 * is down) to `logError`, named by what the connection serves. Without a
 * listener ioredis writes each one to stderr, outside the JSON log.
 */
export function reportRedisErrors(redis: Redis, servedWhat: string, logError: (message: string) => void): Redis {
  redis.on('error', (error: Error) => logError(`Redis connection of ${servedWhat}: ${error.message}`));
  return redis;
}

/** Removes every key under `prefix:` (an instance's, a test suite's, a benchmark's), without blocking Redis on one large command. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Resolves once the connection is down: at once if it is not up now, else when it next closes. */
export function whenDown(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('close', () => resolve()));
}

/**
 * Closes a connection once `inFlight` (what still uses it) has ended: QUIT,
 * so that replies still due arrive, at most `graceMs` in all, then a plain
 * disconnect. Once Redis is out of reach (now, or while waiting) nothing
 * more can arrive, and a connection that waits for Redis would hold its
 * commands and QUIT until it came back, and shutdown with them: it is
 * disconnected at once.
 */
export async function closeRedis(redis: Redis, graceMs = 1_000, inFlight: Promise<unknown> = Promise.resolve()): Promise<void> {
  await settlesWithin(Promise.race([inFlight.then(() => redis.quit()), whenDown(redis)]), graceMs);
  if (redis.status !== 'end') redis.disconnect();
}
