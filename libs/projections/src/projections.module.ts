import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { createRedis, LEDGER_CONFIG, LedgerConfig, reportRedisErrors } from '@ledger/platform';
import type { Redis } from 'ioredis';
import { AnyDocumentProjection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { ReadModel } from './read-model';

/** The Redis connection the projections write and read through (their own, so a slow queue never delays them). */
export const PROJECTIONS_REDIS = Symbol('PROJECTIONS_REDIS');

export interface ProjectionsModuleOptions {
  projections: readonly AnyDocumentProjection[];
  /** How long shutdown waits for the batch in flight when Redis is unreachable (5000 ms). */
  shutdownGraceMs?: number;
  /**
   * Whether the read model's connection sends what one event-loop turn asks
   * in one write (true). A traced process turns it off: a command that joins
   * a batch begun by another request, or by the projections' polling, is
   * written in that one's context and traced there, not beneath its own request.
   */
  autoPipelining?: boolean;
}

const OPTIONS = Symbol('PROJECTIONS_MODULE_OPTIONS');

@Injectable()
class ProjectionsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(PROJECTIONS_REDIS) private readonly redis: Redis,
    @Inject(OPTIONS) private readonly options: ProjectionsModuleOptions,
  ) {}

  /** Does not wait for the catch-up: /health/ready reports it through `runner.isReady()`. */
  onApplicationBootstrap(): void {
    this.runner.start();
  }

  /**
   * After the HTTP server has closed, so no request is still waiting for a
   * position. With Redis unreachable, the batch in flight and quit() would
   * wait for it forever (ioredis keeps commands queued while it reconnects);
   * past the grace period they are abandoned and the connection dropped.
   * Nothing is lost: the next start redoes the batch from the checkpoint.
   */
  async onApplicationShutdown(): Promise<void> {
    const closing = this.runner.stop().then(() => this.redis.quit());
    if (!(await settlesWithin(closing, this.options.shutdownGraceMs ?? 5_000))) this.redis.disconnect();
  }
}

/**
 * Runs the projections inside a Nest application and provides `ProjectionRunner`
 * (waitForPosition, isReady) and `ReadModel` to every module. The application
 * provides EVENT_STORE and LEDGER_CONFIG globally.
 */
@Module({})
export class ProjectionsModule {
  static forRoot(options: ProjectionsModuleOptions): DynamicModule {
    const logger = new Logger('Projections');
    return {
      module: ProjectionsModule,
      global: true,
      providers: [
        { provide: OPTIONS, useValue: options },
        {
          provide: PROJECTIONS_REDIS,
          inject: [LEDGER_CONFIG],
          // Requests read through this connection concurrently: auto-pipelining sends what one event-loop turn asks in one write.
          useFactory: (config: LedgerConfig) =>
            reportRedisErrors(createRedis(config.redisUrl, 'projections', { enableAutoPipelining: options.autoPipelining ?? true }), 'the read model', (message) => logger.error(message)),
        },
        {
          provide: ProjectionRunner,
          inject: [EVENT_STORE, PROJECTIONS_REDIS, LEDGER_CONFIG],
          useFactory: (store: EventStore, redis: Redis, config: LedgerConfig) =>
            new ProjectionRunner({
              store,
              redis,
              prefix: config.redisPrefix,
              projections: options.projections,
              log: (level, message) => (level === 'error' ? logger.error(message) : logger.warn(message)),
            }),
        },
        {
          provide: ReadModel,
          inject: [PROJECTIONS_REDIS, LEDGER_CONFIG],
          useFactory: (redis: Redis, config: LedgerConfig) => new ReadModel({ redis, prefix: config.redisPrefix }),
        },
        ProjectionsLifecycle,
      ],
      exports: [ProjectionRunner, ReadModel, PROJECTIONS_REDIS],
    };
  }
}

/** Whether `promise` settles (either way) within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
}
