import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabaseSync } from '@ledger/event-store/testing';
import { createRedis, deleteKeysUnder, redisLocationOf } from '@ledger/platform';

/**
 * An isolated environment for one suite: its own data directory (SQLite file,
 * master key), its own Redis prefix, the same variables the service reads.
 * Webhook receivers of the tests listen on loopback, which only
 * LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets endpoints target.
 *
 * With DATABASE_URL set for the test run (`DATABASE_URL=postgres://… npx
 * jest test`), every environment gets a fresh PostgreSQL database on that
 * server instead of the SQLite file (and its blobs go there too), dropped on
 * dispose: the suites then run on PostgreSQL. A suite about the embedded
 * store itself passes EMBEDDED_STORE to stay on SQLite.
 */
export interface TestEnvironment {
  env: Record<string, string>;
  dataDir: string;
  prefix: string;
  /** Deletes the prefix's Redis keys and the data directory. */
  dispose(): Promise<void>;
}

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The Redis of the test run: with REDIS_CLUSTER_NODES set (`npm run
 * test:redis-cluster`), every environment's service uses that Redis Cluster
 * instead of REDIS_URL's Redis, unless the suite gives it a Redis of its own.
 */
const REDIS_OF_THE_RUN: Record<string, string> = process.env.REDIS_CLUSTER_NODES ? { REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES } : { REDIS_URL };

/** The environment's variables with a Redis of the suite's own at `url`, in place of the run's (a Redis Cluster or not). */
export function withRedisAt(env: Record<string, string>, url: string): Record<string, string> {
  const { REDIS_CLUSTER_NODES: _runs, ...rest } = env;
  return { ...rest, REDIS_URL: url };
}

/** For suites about the embedded store's files (modes, tampering, LEDGER_DATA_DIR): SQLite even in a run on PostgreSQL. */
export const EMBEDDED_STORE = { DATABASE_URL: '' };

export function testEnvironment(overrides: Record<string, string> = {}): TestEnvironment {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-e2e-'));
  const prefix = `test:${randomUUID()}`;
  const database = process.env.DATABASE_URL && overrides.DATABASE_URL === undefined ? createTestDatabaseSync() : undefined;
  const env = {
    ...(database ? { DATABASE_URL: database.url } : {}),
    LEDGER_DATA_DIR: dataDir,
    LEDGER_REDIS_PREFIX: prefix,
    LEDGER_MASTER_KEY: randomBytes(32).toString('hex'),
    LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'),
    // One name for the log in every process of the suite, as one LEDGER_PUBLIC_URL gives production's (each process's own port would not).
    LEDGER_LOG_ORIGIN: 'ledger.test/consent-ledger',
    ...(overrides.REDIS_URL === undefined ? REDIS_OF_THE_RUN : {}),
    LOG_LEVEL: 'warn',
    LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...overrides,
  };
  return {
    env,
    dataDir,
    prefix,
    dispose: async () => {
      await deleteRedisKeys(prefix);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = createRedis(redisLocationOf(process.env), 'test-cleanup', { maxRetriesPerRequest: 3 });
  try {
    return await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * The two stores a suite runs its cases on: the embedded SQLite file, and a
 * fresh PostgreSQL database that `dispose` drops with the rest.
 */
export const EACH_STORE: Array<[string, () => TestEnvironment]> = [
  ['SQLite', () => testEnvironment(EMBEDDED_STORE)],
  [
    'PostgreSQL',
    () => {
      const database = createTestDatabaseSync();
      const environment = testEnvironment({ DATABASE_URL: database.url });
      return { ...environment, dispose: () => environment.dispose().finally(() => database.drop()) };
    },
  ],
];
