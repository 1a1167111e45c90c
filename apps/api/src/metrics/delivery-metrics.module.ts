import { Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { closeRedis, createRedis, LEDGER_CONFIG, LedgerConfig, reportRedisErrors, type RedisClient } from '@ledger/platform';
import { WebhookDeliveryMetrics } from '@ledger/webhooks';

/** The metrics' own Redis connection. */
export const METRICS_REDIS = Symbol('METRICS_REDIS');

const QUIT_GRACE_MS = 1_000;

/**
 * Closes the connection in `onApplicationShutdown`, after the queue workers
 * have drained in `onModuleDestroy` (QueueRuntime), so the last attempts are
 * still counted. With Redis unreachable quit() would wait for it; past the
 * grace period the connection is dropped (those counts are lost, nothing else).
 */
@Injectable()
class MetricsRedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(METRICS_REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis, QUIT_GRACE_MS);
  }
}

/**
 * The webhook delivery counters, for every process that records or reads
 * them: the deliveries' workers (apps/api by default, apps/worker) and the
 * API's GET /metrics. Needs LEDGER_CONFIG, which LedgerCoreModule provides
 * globally in both processes.
 *
 * The connection is the metrics' own, created from LEDGER_CONFIG, rather than
 * one borrowed from elsewhere: PROJECTIONS_REDIS exists only where the
 * projections run (not in apps/worker), and QueueRuntime keeps its
 * connection to itself. A connection of its own also means a metric write
 * never queues behind a projection batch or BullMQ's commands. Like every
 * connection of the service it waits for Redis to come back rather than
 * failing its commands; the recorder bounds that wait per attempt.
 */
@Module({
  providers: [
    {
      provide: METRICS_REDIS,
      inject: [LEDGER_CONFIG],
      useFactory: (config: LedgerConfig) => {
        const logger = new Logger('Metrics');
        return reportRedisErrors(createRedis(config.redis, `${config.redisPrefix}:metrics`), 'the metrics', (message) => logger.error(message));
      },
    },
    MetricsRedisLifecycle,
    {
      provide: WebhookDeliveryMetrics,
      inject: [METRICS_REDIS, LEDGER_CONFIG],
      useFactory: (redis: RedisClient, config: LedgerConfig) => {
        const logger = new Logger('Metrics');
        return new WebhookDeliveryMetrics({ redis, prefix: config.redisPrefix, log: (message) => logger.warn(message) });
      },
    },
  ],
  exports: [WebhookDeliveryMetrics],
})
export class DeliveryMetricsModule {}
