import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { createEventStore, EventStore } from '@ledger/event-store';
import { createRedis, loadConfig } from '@ledger/platform';
import { ProjectionRunner } from '@ledger/projections';
import type { Redis } from 'ioredis';
import { ProjectionThread } from '../apps/api/src/projection-thread';
import { PROJECTIONS } from '../apps/api/src/projections';
import { newEvent } from '@ledger/event-store/testing';
import { EMBEDDED_STORE, REDIS_URL, TestEnvironment, testEnvironment } from './support/environment';

describe('the API projection thread', () => {
  let environment: TestEnvironment;
  let redis: Redis;
  let store: EventStore | undefined;
  let laterStore: EventStore | undefined;
  let thread: ProjectionThread | undefined;

  beforeEach(() => {
    environment = testEnvironment(EMBEDDED_STORE);
    redis = createRedis(REDIS_URL, 'projection-thread-test');
  });

  afterEach(async () => {
    await thread?.onApplicationShutdown();
    await store?.close();
    await laterStore?.close();
    store = laterStore = thread = undefined;
    await redis.quit();
    await environment.dispose();
    jest.restoreAllMocks();
  });

  const config = () => loadConfig(environment.env, () => undefined);
  const runnerOn = (eventStore: EventStore) => new ProjectionRunner({ store: eventStore, redis, prefix: environment.prefix, projections: PROJECTIONS });

  it("follows the store on its own thread and feeds the progress of this thread's runner, which does not follow", async () => {
    store = createEventStore(config());
    const runner = runnerOn(store);
    thread = new ProjectionThread(config(), runner);
    thread.onApplicationBootstrap();
    expect(await runner.ready(15_000)).toBe(true);

    const { position } = await store.append('s1', [newEvent()], 'no_stream');
    expect(await runner.waitForPosition(position, 5_000)).toBe(true);
    // The checkpoints in Redis were written by the thread: the runner here only reads them.
    expect((await runner.status()).map((status) => status.checkpoint)).toEqual(PROJECTIONS.map(() => position));

    await thread.onApplicationShutdown();
    const after = await store.append('s2', [newEvent()], 'no_stream');
    expect(await runner.waitForPosition(after.position, 500)).toBe(false);
  });

  it('starts the thread again after it died, backing off while it cannot start, and forgets what a dead thread reported', async () => {
    const errors: string[] = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    store = createEventStore(config());
    const runner = runnerOn(store);
    // The thread opens the store without creating it: pointed at a directory with no ledger yet, it fails at its start.
    const later = { ...config(), dataDir: join(environment.dataDir, 'later') };
    thread = new ProjectionThread(later, runner);
    // As if an earlier thread had reported before it died: a report that no longer moves must not pass for progress.
    runner.progress.update({ absorbed: 7, ready: true, rebuilding: false });
    thread.onApplicationBootstrap();
    await waitFor(() => errors.some((message) => message.includes('no ledger at')) && errors.some((message) => message.includes('the projection thread ended')));
    expect(runner.progress.report).toEqual({ absorbed: -1, ready: false, rebuilding: false });

    laterStore = createEventStore(later);
    const { position } = await laterStore.append('s1', [newEvent()], 'no_stream');
    expect(await runner.waitForPosition(position, 15_000)).toBe(true);
    expect(runner.isReady()).toBe(true);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
