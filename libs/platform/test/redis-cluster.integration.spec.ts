import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, RedisClusterUnderTest } from '../../../test/support/redis-cluster';
import { RedisClient, closeRedis, createRedis, deleteKeysUnder, pingRedis, scanKeys } from '../src';

/** Enough keys that, spread by their names, every primary of three holds some. */
const KEYS = 60;

async function allKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of scanKeys(redis, pattern)) found.push(...keys);
  return found.sort();
}

// Against a real three-primary Redis Cluster started from the installed redis-server, and the one Redis of every suite.
describe('Redis connections on one Redis and on a Redis Cluster', () => {
  let cluster: RedisClusterUnderTest;
  let clients: RedisClient[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => closeRedis(client)));
    clients = [];
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const connect = (location: Parameters<typeof createRedis>[0]) => {
    const client = createRedis(location, 'redis-cluster-spec');
    clients.push(client);
    return client;
  };

  it('makes a cluster client from the nodes to start from, which learns the others', async () => {
    const redis = connect({ clusterNodes: cluster.nodes.slice(0, 1) });
    expect(redis).toBeInstanceOf(Cluster);
    await redis.set('probe', 'x');
    expect(await redis.get('probe')).toBe('x');
    expect((redis as Cluster).nodes('master')).toHaveLength(3);
  });

  it('gives every node the connection options: its name, and a failure at once when it is not to wait for Redis', async () => {
    const redis = createRedis({ clusterNodes: cluster.nodes }, 'named-connection', { enableOfflineQueue: false, maxRetriesPerRequest: 0 }) as Cluster;
    clients.push(redis);
    // No offline queue: nothing is sent before the cluster is ready, as the read model's connection (decision 0079).
    await expect(redis.ping()).rejects.toThrow(/enableOfflineQueue/);
    await once(redis, 'ready');
    const names = await Promise.all(redis.nodes('master').map((node) => node.client('GETNAME')));
    expect(names).toEqual(['named-connection', 'named-connection', 'named-connection']);
    expect(redis.options.enableOfflineQueue).toBe(false);
  });

  it('finds the keys under a prefix on every primary, and deletes them, on a cluster as on one Redis, from a connection just made', async () => {
    const locations = [process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { clusterNodes: cluster.nodes }];
    for (const location of locations) {
      const redis = connect(location);
      const prefix = `redis-cluster-spec:${randomUUID()}`;
      const names = Array.from({ length: KEYS }, (_, i) => `${prefix}:key-${i}`);
      await Promise.all(names.map((name) => redis.set(name, '1')));
      await redis.set(`${prefix}-beside:key`, '1');

      if (redis instanceof Cluster) {
        const holding = await Promise.all(redis.nodes('master').map(async (node) => (await node.dbsize()) > 0));
        expect(holding).toEqual([true, true, true]);
      } else {
        expect(redis).toBeInstanceOf(Redis);
      }
      // A cluster client knows the primaries only once it has learnt the slots: a new one waits for that.
      expect(await allKeys(connect(location), `${prefix}:*`)).toEqual([...names].sort());
      expect(await deleteKeysUnder(connect(location), prefix)).toBe(KEYS);
      expect(await allKeys(redis, `${prefix}:*`)).toEqual([]);
      expect(await redis.get(`${prefix}-beside:key`)).toBe('1');
      await redis.del(`${prefix}-beside:key`);
    }
  });

  // Last: it ends a node of this suite's cluster.
  it('answers while every slot is served, and fails once a primary is gone and the cluster says so', async () => {
    const redis = connect({ clusterNodes: cluster.nodes });
    await expect(pingRedis(redis)).resolves.toBeUndefined();
    await cluster.stopNode(2);
    // The cluster marks the node failed after its node timeout (5 s here); a probe that waits on the lost node counts as failed.
    const failed = async () => {
      const outcome = await Promise.race([pingRedis(redis).then(() => 'ok', () => 'failed'), new Promise((resolve) => setTimeout(resolve, 1_000, 'failed'))]);
      return outcome === 'failed';
    };
    const deadline = Date.now() + 30_000;
    while (!(await failed())) {
      if (Date.now() > deadline) throw new Error('the cluster was still ok 30 s after a primary ended');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Every probe from then on, whichever node it reaches: a PING of one node would still answer from the others.
    const next = await Promise.all(Array.from({ length: 6 }, failed));
    expect(next).toEqual(Array(6).fill(true));
  }, 60_000);
});
