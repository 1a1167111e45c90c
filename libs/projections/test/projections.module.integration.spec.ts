import 'reflect-metadata';
import { Global, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EVENT_STORE } from '@ledger/event-store';
import { LEDGER_CONFIG, loadConfig } from '@ledger/platform';
import type { Redis } from 'ioredis';
import { PROJECTIONS_REDIS, ProjectionRunner, ProjectionsModule, ReadModel } from '../src';
import { CuttableRelay } from '../../../test/support/cuttable-relay';
import { eventually, REDIS_URL, TestEnvironment } from './environment';
import { streamCounts } from './stream-counts.projection';

describe('ProjectionsModule', () => {
  let env: TestEnvironment;

  beforeEach(() => {
    env = new TestEnvironment();
  });

  afterEach(async () => {
    await env.dispose();
  });

  /** An application that provides the store and the configuration globally, as the API does. */
  function createApp(redisUrl = REDIS_URL, logger: LoggerService | false = false) {
    const config = loadConfig({ REDIS_URL: redisUrl, LEDGER_REDIS_PREFIX: env.prefix, LEDGER_MASTER_KEY: '00'.repeat(32), LEDGER_LOG_SIGNING_KEY: '11'.repeat(32), LEDGER_DATA_DIR: env.dir });

    @Global()
    @Module({
      providers: [
        { provide: EVENT_STORE, useValue: env.store },
        { provide: LEDGER_CONFIG, useValue: config },
      ],
      exports: [EVENT_STORE, LEDGER_CONFIG],
    })
    class InfrastructureModule {}

    @Module({ imports: [InfrastructureModule, ProjectionsModule.forRoot({ projections: [streamCounts()], shutdownGraceMs: 200 })] })
    class AppModule {}

    return NestFactory.createApplicationContext(AppModule, { logger });
  }

  it('starts the runner with the application, serves reads, and stops it and its Redis connection on close', async () => {
    const app = await createApp();
    const runner = app.get(ProjectionRunner);
    const readModel = app.get(ReadModel);
    const redis = app.get<Redis>(PROJECTIONS_REDIS);
    try {
      await app.init();
      expect(await runner.ready(5000)).toBe(true);
      const position = await env.append('s1', 'Opened');
      expect(await runner.waitForPosition(position, 5000)).toBe(true);
      expect(await readModel.getDocument('stream-counts', 't1:s1')).toMatchObject({ count: 1 });
    } finally {
      await app.close();
    }
    // quit() resolves on Redis's OK; the socket closes just after.
    await eventually(async () => redis.status === 'end', 1000);
    expect(await runner.waitForPosition(await env.append('s1'), 100)).toBe(false);
  });

  it('reports its connection’s errors in the application’s log, not as unhandled errors on stderr', async () => {
    const relay = new CuttableRelay();
    const errors: string[] = [];
    const logger: LoggerService = { log: () => undefined, warn: () => undefined, error: (message: unknown) => void errors.push(String(message)) };
    const unhandled = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const app = await createApp(await relay.listen(), logger);
    try {
      await app.init();
      expect(await app.get(ProjectionRunner).ready(5000)).toBe(true);
      relay.down();
      await eventually(async () => errors.some((message) => message.startsWith('Redis connection of the read model: ')), 5000);
      expect(unhandled.mock.calls.filter(([first]) => String(first).includes('[ioredis]'))).toEqual([]);
    } finally {
      await app.close();
      unhandled.mockRestore();
      await relay.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  }, 15_000);

  it('shuts down within the grace period while Redis is unreachable', async () => {
    const relay = new CuttableRelay();
    try {
      const app = await createApp(await relay.listen());
      await app.init();
      const runner = app.get(ProjectionRunner);
      expect(await runner.waitForPosition(await env.append('s1'), 5000)).toBe(true);

      relay.down();
      await env.append('s1');
      // Without the grace period this never resolves and the test times out.
      await expect(app.close()).resolves.toBeUndefined();
    } finally {
      await relay.close();
    }
    // disconnect() while reconnecting arms ioredis's 2 s timer for the dead socket; let it run out so jest exits cleanly.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  }, 10_000);
});
