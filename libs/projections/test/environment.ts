import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore, SqliteEventStore } from '@ledger/event-store';
import { createRedis, isRedisCluster, redisLocationOf, scanKeys, type RedisClient, type RedisLocation } from '@ledger/platform';
import { AnyDocumentProjection, ProjectionRunner, ReadModel } from '../src';
import { RedisLayout } from '../src/redis-layout';
import { deleteRedisKeysAtOnce } from '../../../test/support/redis-keys';
import { newEvent, streamCounts } from './stream-counts.projection';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** The Redis of the test run: REDIS_CLUSTER_NODES's Redis Cluster in `npm run test:redis-cluster`, else REDIS_URL's. */
const REDIS_OF_THE_RUN: RedisLocation = process.env.REDIS_CLUSTER_NODES ? redisLocationOf(process.env) : REDIS_URL;

/**
 * A real SQLite store in a temporary directory and a unique Redis prefix, with
 * everything created through it closed and deleted by `dispose()`.
 */
export class TestEnvironment {
  private readonly connections: RedisClient[] = [];
  private readonly runners: ProjectionRunner[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), 'projections-'));
  readonly storePath = join(this.dir, 'events.sqlite');
  readonly store = new SqliteEventStore(this.storePath);
  readonly prefix = `test:${randomUUID()}`;
  readonly redis = this.connect();
  readonly readModel = new ReadModel({ redis: this.redis, prefix: this.prefix });
  private readonly stores: EventStore[] = [this.store];

  /** A separate connection, as another process would have. */
  connect(location: RedisLocation = REDIS_OF_THE_RUN): RedisClient {
    const redis = createRedis(location, 'projections-test');
    this.connections.push(redis);
    return redis;
  }

  /** The same SQLite file opened again, as another process would. */
  openStore(): EventStore {
    const store = new SqliteEventStore(this.storePath);
    this.stores.push(store);
    return store;
  }

  /** Where the runners and the read model of this environment keep their keys. */
  layout(): RedisLayout {
    return new RedisLayout(this.prefix, isRedisCluster(this.redis));
  }

  runner(
    options: { projections?: AnyDocumentProjection[]; prefix?: string; store?: EventStore; batchSize?: number; redisUrl?: string } = {},
  ): ProjectionRunner {
    const runner = new ProjectionRunner({
      store: options.store ?? this.store,
      redis: this.connect(options.redisUrl),
      prefix: options.prefix ?? this.prefix,
      projections: options.projections ?? [streamCounts()],
      batchSize: options.batchSize,
      idleCheckMs: 50,
      log: () => undefined,
    });
    this.runners.push(runner);
    return runner;
  }

  /** Appends one event and returns its position. */
  async append(stream: string, type = 'Noted'): Promise<number> {
    return (await this.store.append(stream, [newEvent(type)], 'any')).position;
  }

  /** Deletes the prefix's keys at once, as a Redis that lost its data would (test/support/redis-keys.ts). */
  async deleteKeys(prefix = this.prefix): Promise<void> {
    await deleteRedisKeysAtOnce(prefix);
  }

  async keyCount(pattern: string): Promise<number> {
    let count = 0;
    for await (const keys of scanKeys(this.redis, pattern)) count += keys.length;
    return count;
  }

  /** A model built from zero, on a fresh prefix, from the store as it is now. */
  async referenceDigest(projection: AnyDocumentProjection = streamCounts()): Promise<string> {
    const prefix = `test:${randomUUID()}`;
    const runner = this.runner({ prefix, projections: [projection] });
    try {
      runner.start();
      if (!(await runner.ready(10_000))) throw new Error('the reference model did not catch up');
      return await runner.digest(projection.name);
    } finally {
      await runner.stop();
      await this.deleteKeys(prefix);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
    await this.deleteKeys();
    await Promise.all(this.connections.map((redis) => redis.quit()));
    await Promise.all(this.stores.map((store) => store.close()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls `condition` until it holds; throws after `timeoutMs`. For effects with no event to wait on. */
export async function eventually(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
