import { RedisClient, isRedisCluster, unitPrefix } from '@ledger/platform';

/**
 * Where BullMQ keeps the queues of an instance (LEDGER_REDIS_PREFIX), for
 * every process that opens them: the API, the worker, the CLI. The queues
 * and their dispatchers' marks are one unit (decision 0091): on a Redis
 * Cluster they are lost together, as decision 0080 expects.
 */
export function queuePrefix(redis: RedisClient, redisPrefix: string): string {
  return `${queuesUnit(redis, redisPrefix)}:bull`;
}

/** Where every key of the queues and their dispatchers starts. */
export function queuesUnit(redis: RedisClient, redisPrefix: string): string {
  return unitPrefix(isRedisCluster(redis), redisPrefix, 'queues');
}
