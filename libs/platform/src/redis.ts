import { once } from 'node:events';
import { Cluster, Redis, RedisOptions } from 'ioredis';
import { settlesWithin } from './settles-within';

/** Where Redis is: one server's URL, or nodes of a Redis Cluster to learn the cluster from (decision 0091). */
export type RedisLocation = string | { clusterNodes: readonly RedisNodeAddress[] };

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** A connection to one Redis or to a Redis Cluster: the commands are the same, routed by key on a cluster. */
export type RedisClient = Redis | Cluster;

/**
 * Where the keys of one unit of atomic work start (decision 0091): on one
 * Redis, the instance's prefix, as keys always were; on a Redis Cluster,
 * the prefix and a hash tag naming the unit, so that every key of the unit
 * is in one slot, as a script, a transaction or a pipeline over them needs,
 * and different units spread over the nodes.
 */
export function unitPrefix(clustered: boolean, prefix: string, unit: string): string {
  return clustered ? `${prefix}:{${prefix}:${unit}}` : prefix;
}

/** Whether the connection is to a Redis Cluster. */
export function isRedisCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * One factory for every Redis connection. BullMQ requires
 * `maxRetriesPerRequest: null` on the connections its workers block on, so
 * a worker waits for Redis to come back instead of failing its commands;
 * the read model uses the same setting so that a Redis restart delays
 * projection writes rather than dropping them. On a cluster the same
 * options hold for the connection to each node, and the cluster waits and
 * retries as one server would.
 */
export function createRedis(location: string, name: string, extra?: RedisOptions): Redis;
export function createRedis(location: RedisLocation, name: string, extra?: RedisOptions): RedisClient;
export function createRedis(location: RedisLocation, name: string, extra: RedisOptions = {}): RedisClient {
  const options: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 6), 2_000),
    ...extra,
  };
  if (typeof location === 'string') return new Redis(location, options);
  // What the cluster client decides for the whole cluster; the rest applies to each node's connection.
  const { enableOfflineQueue, enableReadyCheck, enableAutoPipelining, retryStrategy, lazyConnect, ...eachNode } = options;
  return new Cluster(
    location.clusterNodes.map(({ host, port }) => ({ host, port })),
    { enableOfflineQueue, enableReadyCheck, enableAutoPipelining, lazyConnect, clusterRetryStrategy: retryStrategy, redisOptions: eachNode },
  );
}

/**
 * The keys matching `pattern`, a page at a time: SCAN on one Redis, on each
 * primary of a cluster (a node's SCAN sees only its own slots).
 */
export async function* scanKeys(redis: RedisClient, pattern: string, count = 1000): AsyncGenerator<string[]> {
  for (const node of isRedisCluster(redis) ? await primariesOf(redis) : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * Sends a connection's errors (one for each failed reconnection while Redis
 * is down) to `logError`, named by what the connection serves. Without a
 * listener ioredis writes each one to stderr, outside the JSON log.
 */
export function reportRedisErrors<Client extends RedisClient>(redis: Client, servedWhat: string, logError: (message: string) => void): Client {
  redis.on('error', (error: Error) => logError(`Redis connection of ${servedWhat}: ${error.message}`));
  return redis;
}

/**
 * Answers once Redis does, and fails when it cannot serve every key: on a
 * cluster, unless the cluster says its state is ok (every slot served by
 * a node it reaches), since each primary holds some unit's keys.
 */
export async function pingRedis(redis: RedisClient): Promise<void> {
  if (!isRedisCluster(redis)) {
    await redis.ping();
    return;
  }
  const info = String(await redis.cluster('INFO'));
  if (!/^cluster_state:ok\r?$/m.test(info)) throw new Error(`the Redis Cluster is not ok (${/^cluster_state:(\w+)/m.exec(info)?.[1] ?? 'no state'})`);
}

/** A cluster's primaries, known once the client has learnt the cluster's slots. */
async function primariesOf(cluster: Cluster): Promise<Redis[]> {
  if (cluster.status === 'end') throw new Error('the Redis Cluster connection is closed');
  if (cluster.status !== 'ready') await once(cluster, 'ready');
  return cluster.nodes('master');
}

/**
 * Removes every key under `prefix:` (an instance's, a test suite's, a
 * benchmark's), without blocking Redis on one large command. On a cluster
 * each key is unlinked on its own: the keys of one page may be in several
 * slots, which one command cannot span.
 */
export async function deleteKeysUnder(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(redis, `${prefix}:*`)) {
    if (isRedisCluster(redis)) {
      const replies = (await keys.reduce((pipeline, key) => pipeline.unlink(key), redis.pipeline()).exec()) ?? [];
      for (const [error, count] of replies) {
        if (error) throw error;
        deleted += count as number;
      }
    } else {
      deleted += await redis.unlink(...keys);
    }
  }
  return deleted;
}

/** Resolves once the connection is down: at once if it is not up now, else when it next closes. */
export function whenDown(redis: RedisClient): Promise<void> {
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
export async function closeRedis(redis: RedisClient, graceMs = 1_000, inFlight: Promise<unknown> = Promise.resolve()): Promise<void> {
  await settlesWithin(Promise.race([inFlight.then(() => redis.quit()), whenDown(redis)]), graceMs);
  if (redis.status !== 'end') redis.disconnect();
}
