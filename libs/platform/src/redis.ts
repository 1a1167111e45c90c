import { Redis, RedisOptions } from 'ioredis';

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
