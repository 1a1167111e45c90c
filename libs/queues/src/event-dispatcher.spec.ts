import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SqliteEventStore } from '@ledger/event-store';
import { EventDispatcher, EventDispatcherOptions } from './event-dispatcher';

// Integration: the real SQLite store, Redis and a BullMQ queue.
describe('EventDispatcher', () => {
  const prefix = `test:dispatcher:${randomUUID()}`;
  let dir: string;
  let store: SqliteEventStore;
  let redis: Redis;
  let queue: Queue;

  const append = (type: string, n: number) =>
    store.append(`s-${randomUUID()}`, [{ id: randomUUID(), type, data: { n }, metadata: { correlationId: 'c', recordedAt: 1, schemaVersion: 1 } }], 'no_stream');
  const logged: string[] = [];
  const started: EventDispatcher[] = [];
  const dispatcher = (inTraceOf?: EventDispatcherOptions['inTraceOf']) => {
    const created = new EventDispatcher({
      inTraceOf,
      store,
      redis,
      prefix,
      name: 'renders',
      queue,
      jobsFor: (event) => (event.type === 'Wanted' ? [{ jobId: `render-${event.id}`, data: { n: (event.data as { n: number }).n } }] : []),
      log: (message) => logged.push(message),
    });
    started.push(created);
    return created;
  };
  const jobCount = async () => (await queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized')).waiting;
  const until = async (condition: () => Promise<boolean>) => {
    const deadline = Date.now() + 5_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dispatcher-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = new Queue(`renders-${randomUUID()}`, { connection: redis, prefix: `${prefix}:bull` });
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((d) => d.stop()));
    expect(logged.splice(0)).toEqual([]);
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds one job per asked-for fact, already recorded or new, and moves its checkpoint', async () => {
    await append('Wanted', 1);
    await append('Ignored', 2);
    const running = dispatcher();
    running.start();
    const last = await append('Wanted', 3);
    await until(async () => (await jobCount()) === 2);
    await until(async () => (await running.checkpoint()) === last.position);
    await running.stop();
    const jobs = await queue.getWaiting();
    expect(jobs.map((j) => j.data).sort((a, b) => a.n - b.n)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it("adds an event's jobs inside inTraceOf (tracing's way into the trace that recorded the event), and asks it nothing for an event that wants no job", async () => {
    const around: string[] = [];
    await append('Ignored', 1);
    const wanted = await append('Wanted', 2);
    const running = dispatcher(async (event, work) => {
      around.push(event.type);
      const before = await jobCount();
      const result = await work();
      expect(await jobCount()).toBe(before + 1);
      return result;
    });
    running.start();
    await until(async () => (await running.checkpoint()) === wanted.position);
    await running.stop();
    expect(around).toEqual(['Wanted']);
    expect(await jobCount()).toBe(1);
  });

  it('adds nothing twice after a restart or after losing its checkpoint', async () => {
    await append('Wanted', 1);
    await append('Wanted', 2);
    const first = dispatcher();
    first.start();
    await until(async () => (await jobCount()) === 2);
    await first.stop();

    await redis.del(`${prefix}:dispatcher:renders:checkpoint`);
    const second = dispatcher();
    second.start();
    await append('Wanted', 3);
    await until(async () => (await jobCount()) === 3);
    await new Promise((r) => setTimeout(r, 200));
    await second.stop();
    expect(await jobCount()).toBe(3);
  });

  const waitingNs = async () => (await queue.getWaiting()).map((job) => (job.data as { n: number }).n).sort((a, b) => a - b);
  /** A job that finished and was removed, as the queues remove finished jobs. */
  const finish = async (n: number) => {
    const job = (await queue.getWaiting()).find((waiting) => (waiting.data as { n: number }).n === n);
    await job!.remove();
  };
  /** What a Redis that lost its data holds of this dispatcher and its queue: nothing. */
  const loseRedis = async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  };

  it('saves in the store the position through which every job it added has finished', async () => {
    const first = await append('Wanted', 1);
    const second = await append('Wanted', 2);
    await append('Ignored', 3);
    const running = dispatcher();
    running.start();
    await until(async () => (await running.checkpoint()) === second.position);
    await running.saveFinishedMark();
    expect(await running.finishedMark()).toBe(first.position - 1);

    await finish(1);
    await running.saveFinishedMark();
    expect(await running.finishedMark()).toBe(second.position - 1);
    expect(await store.finishedMarks.of('renders')).toBe(second.position - 1);

    await finish(2);
    await running.saveFinishedMark();
    expect(await running.finishedMark()).toBe(second.position);
    expect(await redis.zcard(`${prefix}:dispatcher:renders:outstanding`)).toBe(0);
  });

  it('after Redis lost the queues and its checkpoint, adds again every job that had not finished by the mark, and the running dispatcher notices by itself', async () => {
    await append('Wanted', 1);
    await append('Wanted', 2);
    await append('Wanted', 3);
    const running = dispatcher();
    running.start();
    await until(async () => (await jobCount()) === 3);
    await finish(1);
    await running.saveFinishedMark();

    const mark = await running.finishedMark();
    await loseRedis();
    await append('Wanted', 4);
    await until(async () => (await waitingNs()).join() === '2,3,4');
    expect(await running.finishedMark()).toBe(mark);
    await running.stop();
    expect(logged.splice(0)).toEqual(['Redis lost the queues and this checkpoint: following again from the finished mark']);
  });

  it('notices by itself, within a second, that Redis lost the queues while no event came', async () => {
    await append('Wanted', 1);
    const wanted = await append('Wanted', 2);
    const running = dispatcher();
    running.start();
    await until(async () => (await running.checkpoint()) === wanted.position);
    await loseRedis();
    // Nothing is saved from what a Redis that lost its data says, and the jobs it lost are added again.
    await until(async () => (await waitingNs()).join() === '1,2');
    expect(await running.finishedMark()).toBeLessThan(wanted.position);
    await running.stop();
    expect(logged.splice(0)).toEqual(['Redis lost the queues and this checkpoint: following again from the finished mark']);
  });

  it('saves no mark from job states read while Redis lost its data', async () => {
    await append('Wanted', 1);
    const wanted = await append('Wanted', 2);
    const running = dispatcher();
    running.start();
    await until(async () => (await running.checkpoint()) === wanted.position);
    await running.stop();
    const mark = await running.finishedMark();
    // The loss comes while the states are being read: the jobs it took look finished.
    const readDuringALoss = new EventDispatcher({
      store,
      redis,
      prefix,
      name: 'renders',
      queue: { add: (name, data, options) => queue.add(name, data, options), getJobState: async () => (await loseRedis(), 'unknown') },
      jobsFor: () => [],
    });
    await readDuringALoss.saveFinishedMark();
    expect(await readDuringALoss.finishedMark()).toBe(mark);
    expect(mark).toBeLessThan(wanted.position);
  });

  it('stops after the event in hand, not at the end of the page it came in', async () => {
    // Recorded before the dispatcher starts: the store hands them over as one page.
    for (let n = 0; n < 300; n += 1) await append('Wanted', n);
    let stopping: Promise<void> | undefined;
    const following: EventDispatcher = new EventDispatcher({
      store,
      redis,
      prefix,
      name: 'renders',
      queue,
      jobsFor: (event) => {
        stopping ??= following.stop();
        return [{ jobId: `render-${event.id}`, data: {} }];
      },
      log: (message) => logged.push(message),
    });
    following.start();
    await until(async () => stopping !== undefined);
    await stopping;
    expect(await jobCount()).toBe(1);
  });
});
