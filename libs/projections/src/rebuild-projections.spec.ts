import { EventStore } from '@ledger/event-store';
import { systemClock } from '@ledger/platform';
import { TestEnvironment } from '../test/environment';
import { streamCounts } from '../test/stream-counts.projection';
import { DocumentProjection } from './projection';
import type { RebuildResult } from './projection-runner';
import { rebuildProjection } from './rebuild';
import { RedisLayout } from './redis-layout';

/** A second projection over the same events, with documents of its own: events per type. */
const typeCounts: DocumentProjection<{ type: string; count: number }> = {
  name: 'type-counts',
  version: 1,
  route: (event) => [`${event.metadata.tenantId}:${event.type}`],
  evolve: (doc, event) => ({ type: event.type, count: (doc?.count ?? 0) + 1 }),
};

/** The store, counting the pages read. */
function countingStore(store: EventStore): EventStore & { pages: number } {
  const counting = Object.create(store) as EventStore & { pages: number };
  counting.pages = 0;
  counting.readAll = (options) => {
    counting.pages += 1;
    return store.readAll(options);
  };
  return counting;
}

// Requires Redis (as the integration suites in ../test).
describe('rebuilding several projections together', () => {
  const EVENTS = 1050;
  const BATCH = 100;
  let env: TestEnvironment;

  beforeEach(async () => {
    env = new TestEnvironment();
    for (let i = 0; i < EVENTS; i++) await env.append(`s${i % 13}`, i % 7 === 6 ? 'Closed' : i % 5 === 4 ? 'Ignored' : 'Noted');
  });

  afterEach(async () => {
    await env.dispose();
  });

  it('reads each page once for all of them, and each ends as if rebuilt alone', async () => {
    const store = countingStore(env.store);
    const runner = env.runner({ store, projections: [streamCounts(), typeCounts], batchSize: BATCH });
    const results = await runner.rebuild();

    expect(results.map((r) => [r.name, r.events])).toEqual([
      ['stream-counts', EVENTS],
      ['type-counts', EVENTS],
    ]);
    // Eleven pages: ten full ones and the short one that reaches the head.
    expect(store.pages).toBe(Math.ceil(EVENTS / BATCH));
    expect(results[0].digest).toBe(await env.referenceDigest(streamCounts()));
    expect(results[1].digest).toBe(await env.referenceDigest(typeCounts));
    expect((await runner.status()).map((s) => [s.name, s.checkpoint])).toEqual([
      ['stream-counts', EVENTS],
      ['type-counts', EVENTS],
    ]);
  });

  it('deletes every generation it switched away from, and nothing else, once the switches are done', async () => {
    const first = env.runner({ projections: [streamCounts(), typeCounts], batchSize: BATCH });
    await first.rebuild();
    const before = await first.status();
    // A projection left out of the next rebuild, and a key beside the models that shares their prefix's beginning.
    const alone = env.runner({ projections: [{ ...typeCounts, name: 'left-alone' }], batchSize: BATCH });
    await alone.rebuild();
    const [leftAlone] = await alone.status();
    const leftAloneKeys = await env.keyCount(`${env.prefix}:rm:left-alone:${leftAlone.generation}:*`);
    expect(leftAloneKeys).toBeGreaterThan(0);
    await env.redis.set(`${env.prefix}:rmx:unrelated`, 'kept');

    await env.runner({ projections: [streamCounts(), typeCounts], batchSize: BATCH }).rebuild();
    for (const { name, generation } of before) expect(await env.keyCount(`${env.prefix}:rm:${name}:${generation}:*`)).toBe(0);
    for (const { name, generation } of await first.status()) {
      expect(before.map((b) => b.generation)).not.toContain(generation);
      expect(await env.keyCount(`${env.prefix}:rm:${name}:${generation}:*`)).toBeGreaterThan(0);
    }
    expect(await env.keyCount(`${env.prefix}:rm:left-alone:${leftAlone.generation}:*`)).toBe(leftAloneKeys);
    expect(await env.redis.get(`${env.prefix}:rmx:unrelated`)).toBe('kept');
  });

  it('resumes a generation left half-built beside one started from zero', async () => {
    // A rebuild of stream-counts alone, stopped after its third batch: its generation stays under the building pointer.
    const stop = new AbortController();
    const context = { store: env.store, redis: env.redis, layout: new RedisLayout(env.prefix), batchSize: BATCH, clock: systemClock() };
    const absorbed = await rebuildProjection(context, streamCounts(), {
      signal: stop.signal,
      onProgress: (p) => p.events >= 3 * BATCH && stop.abort(),
    });
    expect(absorbed).toBe(3 * BATCH);

    const runner = env.runner({ projections: [streamCounts(), typeCounts], batchSize: BATCH });
    const results = await runner.rebuild();
    expect(results.map((r) => [r.name, r.events])).toEqual([
      ['stream-counts', EVENTS - 3 * BATCH],
      ['type-counts', EVENTS],
    ]);
    expect(results[0].digest).toBe(await env.referenceDigest(streamCounts()));
    expect(results[1].digest).toBe(await env.referenceDigest(typeCounts));
    expect(await env.keyCount(`${env.prefix}:projection:*:building`)).toBe(0);
  });

  it('ends with the same models when two processes rebuild into the same generation at once', async () => {
    // The second opens the generation the first is filling (same version) and their batches race: a refused
    // batch is read again from where the other got to, and documents read ahead for it are not used. (The first,
    // reading each batch's documents with the batch before, wins the races; the second's batches are refused
    // until the first switches, and it then finds its generation gone.)
    const [first, second] = [0, 1].map(() => env.runner({ store: env.openStore(), projections: [streamCounts(), typeCounts], batchSize: 50 }));
    let started: Promise<RebuildResult[]> | undefined;
    const a = await first.rebuild(undefined, (p) => {
      if (p.events >= 200) started ??= second.rebuild();
    });
    const b = await started!;

    for (const results of [a, b]) {
      expect(results.map((r) => r.digest)).toEqual([await env.referenceDigest(streamCounts()), await env.referenceDigest(typeCounts)]);
    }
    expect(await first.contentDigest('stream-counts')).toBe(a[0].digest);
    expect(await first.contentDigest('type-counts')).toBe(a[1].digest);
    expect(await env.keyCount(`${env.prefix}:projection:*:building`)).toBe(0);
  });
});
