import 'reflect-metadata';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LEDGER_CONFIG, LedgerConfig, loadConfig } from '@ledger/platform';
import { Job, JobState, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { JobProcessor, QueueDeclaration, QueueRuntime, queueToken, QueuesModule } from './index';
import { startTsProcess } from './testing/child-process';

// Integration tests against the real Redis; every key lives under PREFIX and is deleted afterwards.
const PREFIX = `test:queues-module:${process.pid}`;
const MASTER_KEY = '11'.repeat(32);
const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });

interface Payload {
  n: number;
}
type Handle = (job: Job<Payload, string>, signal: AbortSignal) => Promise<string>;

/** A processor whose behaviour each test supplies. */
class TestProcessor implements JobProcessor<Payload, string> {
  constructor(private readonly handle: Handle) {}
  process(job: Job<Payload, string>, signal: AbortSignal): Promise<string> {
    return this.handle(job, signal);
  }
}

function declare(name: string, extra: Partial<QueueDeclaration<Payload, string>> = {}): QueueDeclaration<Payload, string> {
  return { name, processor: TestProcessor, ...extra };
}

function configWith(env: Record<string, string> = {}): LedgerConfig {
  return loadConfig({ LEDGER_REDIS_PREFIX: PREFIX, LEDGER_MASTER_KEY: MASTER_KEY, LEDGER_LOG_SIGNING_KEY: MASTER_KEY, ...env });
}

@Module({})
class TestAppModule {}

const open = new Set<INestApplicationContext>();

async function start(options: {
  queues: QueueDeclaration<Payload, string>[];
  handle?: Handle;
  config?: LedgerConfig;
  runWorkers?: boolean;
  drainTimeoutMs?: number;
}): Promise<INestApplicationContext> {
  const { queues, handle = async () => 'unused', config = configWith(), runWorkers, drainTimeoutMs } = options;
  const app = await NestFactory.createApplicationContext(
    {
      module: TestAppModule,
      global: true,
      imports: [QueuesModule.forRoot({ queues, runWorkers, drainTimeoutMs })],
      providers: [
        { provide: LEDGER_CONFIG, useValue: config },
        { provide: TestProcessor, useValue: new TestProcessor(handle) },
      ],
      exports: [LEDGER_CONFIG],
    },
    { logger: false, abortOnError: false },
  );
  open.add(app);
  return app;
}

async function stop(app: INestApplicationContext): Promise<void> {
  open.delete(app);
  await app.close();
}

function queueOf(app: INestApplicationContext, name: string): Queue<Payload, string> {
  return app.get<Queue<Payload, string>>(queueToken(name));
}

/** Reads a queue from outside any application, so state can be checked after an application has closed. */
async function inspect<T>(name: string, use: (queue: Queue<Payload, string>) => Promise<T>, redisPrefix = PREFIX): Promise<T> {
  const queue = new Queue<Payload, string>(name, { connection: redis, prefix: `${redisPrefix}:bull` });
  try {
    return await use(queue);
  } finally {
    await queue.close();
  }
}

async function stateOf(name: string, jobId: string | undefined, redisPrefix = PREFIX): Promise<JobState | 'unknown'> {
  return inspect(name, (queue) => queue.getJobState(jobId!), redisPrefix);
}

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

afterEach(async () => {
  await Promise.all([...open].map((app) => stop(app)));
});

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

it('runs a job added to a declared queue on the in-process worker, under the instance prefix', async () => {
  const app = await start({ queues: [declare('in-process')], handle: async (job) => `done ${job.data.n}` });

  const job = await queueOf(app, 'in-process').add('work', { n: 7 });

  await eventually(async () => (await stateOf('in-process', job.id)) === 'completed');
  const finished = await inspect('in-process', (queue) => queue.getJob(job.id!));
  expect(finished?.returnvalue).toBe('done 7');
  expect(await redis.exists(`${PREFIX}:bull:in-process:${job.id}`)).toBe(1);
});

it("applies the declaration's default job options", async () => {
  let attempts = 0;
  const declaration = declare('retried', {
    defaultJobOptions: { attempts: 2, backoff: { type: 'fixed', delay: 10 }, removeOnComplete: true },
  });
  const app = await start({
    queues: [declaration],
    handle: async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('first attempt fails');
      return 'ok';
    },
  });

  const job = await queueOf(app, 'retried').add('work', { n: 1 });

  await eventually(async () => attempts === 2 && (await stateOf('retried', job.id)) === 'unknown');
});

it('runs no worker when workers are external, and a separately started worker module runs the job', async () => {
  const processed: number[] = [];
  const handle: Handle = async (job) => {
    processed.push(job.data.n);
    return 'ok';
  };
  const api = await start({ queues: [declare('external')], handle, config: configWith({ LEDGER_WORKERS: 'external' }) });

  const job = await queueOf(api, 'external').add('work', { n: 3 });

  expect(await queueOf(api, 'external').getWorkers()).toHaveLength(0);
  await sleep(300);
  expect(await stateOf('external', job.id)).toBe('waiting');

  await start({ queues: [declare('external')], handle, runWorkers: true });
  await eventually(async () => (await stateOf('external', job.id)) === 'completed');
  expect(processed).toEqual([3]);
});

it('lets a job in progress finish before close resolves, and starts no new job meanwhile', async () => {
  const started: number[] = [];
  let finished = false;
  let signalStarted: () => void = () => undefined;
  const firstStarted = new Promise<void>((resolve) => (signalStarted = resolve));
  const app = await start({
    queues: [declare('draining', { concurrency: 2 })],
    handle: async (job) => {
      started.push(job.data.n);
      signalStarted();
      await sleep(600);
      finished = true;
      return 'ok';
    },
  });
  const first = await queueOf(app, 'draining').add('work', { n: 1 });
  await firstStarted;

  const closing = stop(app);
  // Well inside the first job's run, and long after close has begun.
  await sleep(100);
  const second = await inspect('draining', (queue) => queue.add('work', { n: 2 }));
  await closing;

  expect(finished).toBe(true);
  expect(await stateOf('draining', first.id)).toBe('completed');
  expect(await stateOf('draining', second.id)).toBe('waiting');
  expect(started).toEqual([1]);
});

it('waits at most drainTimeoutMs for active jobs, then tells them to abort so they are retried', async () => {
  let signalStarted: () => void = () => undefined;
  const jobStarted = new Promise<void>((resolve) => (signalStarted = resolve));
  const app = await start({
    queues: [declare('stuck', { defaultJobOptions: { attempts: 2 } })],
    drainTimeoutMs: 200,
    handle: (_job, signal) =>
      new Promise((_resolve, reject) => {
        signalStarted();
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      }),
  });
  const job = await queueOf(app, 'stuck').add('work', { n: 1 });
  await jobStarted;

  const closeStarted = Date.now();
  await stop(app);

  expect(Date.now() - closeStarted).toBeGreaterThanOrEqual(200);
  expect(Date.now() - closeStarted).toBeLessThan(2_000);
  await eventually(async () => (await stateOf('stuck', job.id)) === 'waiting');
  const retried = await inspect('stuck', (queue) => queue.getJob(job.id!));
  expect(retried?.attemptsMade).toBe(1);
});

it('keeps instances with different prefixes apart', async () => {
  const processed: number[] = [];
  const handle: Handle = async (job) => {
    processed.push(job.data.n);
    return 'ok';
  };
  const prefixA = `${PREFIX}:a`;
  const prefixB = `${PREFIX}:b`;
  const a = await start({ queues: [declare('shared-name')], handle, config: configWith({ LEDGER_REDIS_PREFIX: prefixA, LEDGER_WORKERS: 'external' }) });
  const b = await start({ queues: [declare('shared-name')], handle, config: configWith({ LEDGER_REDIS_PREFIX: prefixB }) });

  const jobOfA = await queueOf(a, 'shared-name').add('work', { n: 1 });
  const jobOfB = await queueOf(b, 'shared-name').add('work', { n: 2 });

  await eventually(async () => (await stateOf('shared-name', jobOfB.id, prefixB)) === 'completed');
  expect(await stateOf('shared-name', jobOfA.id, prefixA)).toBe('waiting');
  expect(processed).toEqual([2]);
  expect(await a.get(QueueRuntime).queueStats()).toEqual([
    { queue: 'shared-name', waiting: 1, active: 0, delayed: 0, failed: 0, completed: 0 },
  ]);
  expect(await b.get(QueueRuntime).queueStats()).toEqual([
    { queue: 'shared-name', waiting: 0, active: 0, delayed: 0, failed: 0, completed: 1 },
  ]);
});

it('counts delayed and failed jobs per queue', async () => {
  const app = await start({
    queues: [declare('counted'), declare('idle')],
    handle: async () => {
      throw new Error('always fails');
    },
  });
  const queue = queueOf(app, 'counted');
  const failing = await queue.add('work', { n: 1 });
  await queue.add('later', { n: 2 }, { delay: 60_000 });

  await eventually(async () => (await stateOf('counted', failing.id)) === 'failed');
  expect(await app.get(QueueRuntime).queueStats()).toEqual([
    { queue: 'counted', waiting: 0, active: 0, delayed: 1, failed: 1, completed: 0 },
    { queue: 'idle', waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 },
  ]);
});

it('refuses to start workers whose processor no imported module provides', async () => {
  class UnprovidedProcessor extends TestProcessor {}
  await expect(start({ queues: [declare('orphan', { processor: UnprovidedProcessor })], runWorkers: true })).rejects.toThrow(
    /UnprovidedProcessor/,
  );
});

it('refuses a queue declared twice', () => {
  expect(() => QueuesModule.forRoot({ queues: [declare('twice'), declare('twice')] })).toThrow('queue "twice" is declared twice');
});

/** A TCP relay to the real Redis that a test can cut and restore, to stage a Redis outage. */
async function startRelay(): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket().connect(6379, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => socket.destroy());
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: async () => {
      await listen(port);
    },
  };
}

it('keeps a worker process alive through a Redis outage, logging the errors, and resumes when Redis returns', async () => {
  const relay = await startRelay();
  const worker = startTsProcess('libs/queues/src/testing/outage-worker.ts', {
    REDIS_URL: `redis://127.0.0.1:${relay.port}`,
    LEDGER_REDIS_PREFIX: PREFIX,
    LEDGER_MASTER_KEY: MASTER_KEY,
    LEDGER_LOG_SIGNING_KEY: MASTER_KEY,
  });
  try {
    await worker.waitForOutput('outage worker started');
    await inspect('outage', (queue) => queue.add('work', { n: 1 }));
    await worker.waitForOutput('processed 1');

    await relay.cut();
    await worker.waitForOutput('Redis connection of the queues: connect ECONNREFUSED');
    await inspect('outage', (queue) => queue.add('work', { n: 2 }));
    await sleep(200);
    await relay.restore();

    await worker.waitForOutput('processed 2', 10_000);
    expect(worker.exited).toBe(false);
    expect(await worker.stop('SIGTERM')).toBe(0);
  } finally {
    if (!worker.exited) await worker.stop('SIGKILL');
    await relay.cut();
  }
}, 40_000);
