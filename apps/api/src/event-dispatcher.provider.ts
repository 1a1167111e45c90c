import { Logger, OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { EVENT_STORE, EventStore, RecordedEvent } from '@ledger/event-store';
import { LEDGER_CONFIG, LedgerConfig, type RedisClient } from '@ledger/platform';
import { PROJECTIONS_REDIS } from '@ledger/projections';
import { DispatchedJob, EventDispatcher, queueToken } from '@ledger/queues';
import { inTraceOfAppend } from '@ledger/tracing';

/** Runs one EventDispatcher for the application's lifetime: started once every module is up, stopped at shutdown. */
class DispatcherHost implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly dispatcher: EventDispatcher) {}

  onApplicationBootstrap(): void {
    this.dispatcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}

/**
 * The provider that follows the store and asks `queueName` for the jobs
 * `jobsFor` names (facts leave the store only through a follower of it:
 * docs/architecture.md, "Principles"). It runs in the API process, which owns
 * the checkpoint.
 */
export function eventDispatcherProvider(
  queueName: string,
  jobsFor: (store: EventStore) => (event: RecordedEvent) => DispatchedJob[] | Promise<DispatchedJob[]>,
): Provider {
  return {
    provide: `event-dispatcher:${queueName}`,
    inject: [EVENT_STORE, PROJECTIONS_REDIS, LEDGER_CONFIG, queueToken(queueName)],
    useFactory: (store: EventStore, redis: RedisClient, config: LedgerConfig, queue: Queue) => {
      // In the service's log, as one JSON line each: a retry, or Redis found to have lost the queues.
      const logger = new Logger(`dispatcher ${queueName}`);
      const log = (message: string) => logger.warn(message);
      return new DispatcherHost(new EventDispatcher({ store, redis, prefix: config.redisPrefix, name: queueName, queue, jobsFor: jobsFor(store), inTraceOf: inTraceOfAppend(), log }));
    },
  };
}
