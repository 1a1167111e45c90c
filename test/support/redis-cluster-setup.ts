// Jest loads this file outside its module registry: the @ledger/* paths come from tsconfig.json.
import 'tsconfig-paths/register';
import globalSetup from './global-setup';
import { startRedisCluster, RedisClusterUnderTest } from './redis-cluster';

declare global {
  var redisClusterUnderTest: RedisClusterUnderTest | undefined;
}

/**
 * The main run's setup, then a Redis Cluster for the whole run: the suites'
 * processes (jest's workers, the services they start) inherit
 * REDIS_CLUSTER_NODES, and test/support/environment.ts hands it to every
 * service in place of REDIS_URL.
 */
export default async function redisClusterSetup(): Promise<void> {
  await globalSetup();
  const cluster = await startRedisCluster(3);
  globalThis.redisClusterUnderTest = cluster;
  process.env.REDIS_CLUSTER_NODES = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  delete process.env.REDIS_URL;
}
