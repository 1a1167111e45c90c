import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisNodeAddress } from '@ledger/platform';
import { freePort } from './processes';

/** A Redis Cluster node listens for its peers at its port plus this (Redis's fixed offset). */
const CLUSTER_BUS_OFFSET = 10_000;

export interface RedisClusterUnderTest {
  nodes: RedisNodeAddress[];
  /** Ends one node, as a primary lost without a replica. */
  stopNode(index: number): Promise<void>;
  /** Ends every node and removes their files. */
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster of `primaries` primaries and no replicas, from the
 * installed `redis-server` and `redis-cli` (as CI has them), on free ports,
 * its files in a scratch directory: what the suites that run on a cluster
 * start, each its own.
 */
export async function startRedisCluster(primaries = 3): Promise<RedisClusterUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-redis-cluster-'));
  const servers: ChildProcess[] = [];
  const nodes: RedisNodeAddress[] = [];
  const stopNode = async (index: number) => {
    const server = servers[index];
    if (server.exitCode === null && server.signalCode === null) await new Promise((resolve) => server.once('exit', resolve).kill('SIGTERM'));
  };
  const stop = async () => {
    await Promise.all(servers.map((_, index) => stopNode(index)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < primaries; i += 1) {
      const port = await freePort([CLUSTER_BUS_OFFSET]);
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
      args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000');
      servers.push(spawn('redis-server', args, { stdio: 'ignore' }));
      nodes.push({ host: '127.0.0.1', port });
    }
    await Promise.all(nodes.map((node) => until(() => ping(node), 'answers PING')));
    const addresses = nodes.map(({ host, port }) => `${host}:${port}`);
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    await Promise.all(nodes.map((node) => until(() => clusterIsOk(node), 'sees the cluster as ok')));
    return { nodes, stopNode, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function withNode<T>({ host, port }: RedisNodeAddress, use: (redis: Redis) => Promise<T>): Promise<T | false> {
  const redis = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // A node not yet listening refuses the connection: the caller asks again.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function ping(node: RedisNodeAddress): Promise<boolean> {
  return (await withNode(node, (redis) => redis.ping())) === 'PONG';
}

async function clusterIsOk(node: RedisNodeAddress): Promise<boolean> {
  const info = await withNode(node, (redis) => redis.cluster('INFO') as Promise<string>);
  return info !== false && info.includes('cluster_state:ok');
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`a Redis Cluster node never ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
