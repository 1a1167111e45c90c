import { createRedis, isRedisCluster, redisLocationOf, scanKeys, type RedisClient } from '@ledger/platform';

/** A connection to the test run's Redis (REDIS_URL's, or REDIS_CLUSTER_NODES's cluster), for `use` only. */
async function withRunRedis<T>(use: (redis: RedisClient) => Promise<T>): Promise<T> {
  const redis = createRedis(redisLocationOf(process.env), 'test-redis-keys', { maxRetriesPerRequest: 3 });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

async function keysUnder(redis: RedisClient, prefix: string): Promise<string[]> {
  const keys = new Set<string>();
  for await (const page of scanKeys(redis, `${prefix}:*`)) for (const key of page) keys.add(key);
  return [...keys];
}

/**
 * Deletes every key of the prefix in ONE command, as a Redis that lost its
 * data would: the keys are collected first, then unlinked together, so a
 * service running meanwhile never sees a half-deleted model (deleteRedisKeys
 * unlinks page by page, which a running service could interleave with). On
 * a Redis Cluster, where no command spans slots, one command per key, all
 * sent at once. Returns how many keys were deleted.
 */
export async function deleteRedisKeysAtOnce(prefix: string): Promise<number> {
  return withRunRedis(async (redis) => {
    const keys = await keysUnder(redis, prefix);
    if (keys.length === 0) return 0;
    if (!isRedisCluster(redis)) return redis.unlink(...keys);
    return (await Promise.all(keys.map((key) => redis.unlink(key)))).reduce((sum, count) => sum + count, 0);
  });
}

/** How many keys exist under the prefix. */
export async function countRedisKeys(prefix: string): Promise<number> {
  return withRunRedis(async (redis) => (await keysUnder(redis, prefix)).length);
}

/** Every key under the prefix and every value it holds, whatever its type, as bytes: what a scan of Redis for a value reads. */
export async function redisContents(prefix: string): Promise<Buffer> {
  return withRunRedis(async (redis) => {
    const parts: Buffer[] = [];
    for (const key of await keysUnder(redis, prefix)) {
      parts.push(Buffer.from(key));
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.getBuffer(key)) ?? Buffer.alloc(0));
      if (type === 'hash') parts.push(...Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [Buffer.from(field), value]));
      if (type === 'list') parts.push(...(await redis.lrangeBuffer(key, 0, -1)));
      if (type === 'set') parts.push(...(await redis.smembersBuffer(key)));
      if (type === 'zset') parts.push(...(await redis.zrangeBuffer(key, '0', '-1')));
      if (type === 'stream') parts.push(Buffer.from(JSON.stringify(await redis.xrange(key, '-', '+'))));
    }
    return Buffer.concat(parts);
  });
}
