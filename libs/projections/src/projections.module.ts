import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { closeRedis, createRedis, LEDGER_CONFIG, LedgerConfig, reportRedisErrors, type RedisClient } from '@ledger/platform';
import { AnyDocumentProjection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { ReadModel } from './read-model';
import { stopProjections } from './stop-projections';

/** The Redis connection the projections write and read through (their own, so a slow queue never delays them). */
export const PROJECTIONS_REDIS = Symbol('PROJECTIONS_REDIS');
/**
 * The connection requests read the model through. Unlike the others it does
 * not wait for Redis: a command sent while Redis is out of reach, or in
 * flight when the connection drops, fails at once, and the request answers
 * 503 read_model_unavailable instead of hanging until its timeout (decision 0079).
 */
const READ_MODEL_REDIS = Symbol('READ_MODEL_REDIS');

export interface ProjectionsModuleOptions {
  projections: readonly AnyDocumentProjection[];
  /** How long shutdown waits for the batch in flight when Redis is unreachable (5000 ms). */
  shutdownGraceMs?: number;
  /**
   * Whether the runner follows the store in this thread (true). The API
   * follows on a thread of its own and feeds `runner.progress` from it
   * (decision 0077); its runner serves the operator's view and the waits.
   */
  follow?: boolean;
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
    @Inject(PROJECTIONS_REDIS) private readonly redis: RedisClient,
    @Inject(READ_MODEL_REDIS) private readonly readModelRedis: RedisClient,
    @Inject(OPTIONS) private readonly options: ProjectionsModuleOptions,
  ) {}

  /** Does not wait for the catch-up: /health/ready reports it through `runner.isReady()`. */
  onApplicationBootstrap(): void {
    if (this.options.follow ?? true) this.runner.start();
  }

  /** After the HTTP server has closed, so no request is still waiting for a position. */
  async onApplicationShutdown(): Promise<void> {
    await stopProjections(this.runner, this.redis, this.options.shutdownGraceMs);
    await closeRedis(this.readModelRedis);
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
          useFactory: (config: LedgerConfig) =>
            reportRedisErrors(createRedis(config.redis, 'projections', { enableAutoPipelining: options.autoPipelining ?? true }), 'the read model', (message) => logger.error(message)),
        },
        {
          provide: ProjectionRunner,
          inject: [EVENT_STORE, PROJECTIONS_REDIS, LEDGER_CONFIG],
          useFactory: (store: EventStore, redis: RedisClient, config: LedgerConfig) =>
            new ProjectionRunner({
              store,
              redis,
              prefix: config.redisPrefix,
              projections: options.projections,
              log: (level, message) => (level === 'error' ? logger.error(message) : logger.warn(message)),
            }),
        },
        {
          provide: READ_MODEL_REDIS,
          inject: [LEDGER_CONFIG, ProjectionRunner],
          useFactory: (config: LedgerConfig, runner: ProjectionRunner) => {
            // Requests read through this connection concurrently: auto-pipelining sends what one event-loop turn asks in one write.
            const redis = createRedis(config.redis, 'read-model', {
              enableAutoPipelining: options.autoPipelining ?? true,
              enableOfflineQueue: false,
              maxRetriesPerRequest: 0,
            });
            // The same Redis holds the model the projections write: while this connection is down, they absorb nothing.
            redis.on('ready', () => runner.progress.modelReachable(true));
            redis.on('close', () => runner.progress.modelReachable(false));
            return reportRedisErrors(redis, 'the read model (requests)', (message) => logger.error(message));
          },
        },
        {
          provide: ReadModel,
          inject: [READ_MODEL_REDIS, LEDGER_CONFIG, ProjectionRunner],
          useFactory: (redis: RedisClient, config: LedgerConfig, runner: ProjectionRunner) =>
            new ReadModel({ redis, prefix: config.redisPrefix, projections: options.projections, progress: runner.progress }),
        },
        ProjectionsLifecycle,
      ],
      exports: [ProjectionRunner, ReadModel, PROJECTIONS_REDIS],
    };
  }
}
