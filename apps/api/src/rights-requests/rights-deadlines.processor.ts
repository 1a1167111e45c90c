import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock, LEDGER_CONFIG, LedgerConfig, closeRedis, createRedis, reportRedisErrors, sleepUnlessAborted, type RedisClient } from '@ledger/platform';
import { ReadModel, isReadModelUnavailable } from '@ledger/projections';
import type { JobProcessor } from '@ledger/queues';
import { noticeRightsRequestDeadlines } from '@ledger/redec';
import { PROJECTIONS } from '../projections';

/** How often a run finding the read model being rebuilt (or not built yet, at a first start) looks again. */
const REBUILD_POLL_MS = 1_000;

/** The scheduled run carries nothing: it gives every open request the notice it calls for as of the service clock when it runs. */
export type RightsDeadlinesJob = Record<string, never>;

/**
 * The read model's list of open requests, over a connection of this
 * module's own: the worker process (apps/worker) runs no projections, so it
 * has no ReadModel of theirs to share.
 */
@Injectable()
export class OpenRequestsReadModel implements OnApplicationShutdown {
  private readonly redis: RedisClient;
  readonly readModel: ReadModel;

  constructor(@Inject(LEDGER_CONFIG) config: LedgerConfig) {
    const logger = new Logger('RightsDeadlines');
    this.redis = reportRedisErrors(createRedis(config.redis, 'rights-deadlines'), 'the check of rights request deadlines', (message) => logger.error(message));
    this.readModel = new ReadModel({ redis: this.redis, prefix: config.redisPrefix, projections: PROJECTIONS });
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis);
  }
}

/**
 * Gives open rights requests their `due_soon` and `overdue` notices
 * (decision 0069), every LEDGER_RIGHTS_DEADLINE_CHECK_MS: each notice is a
 * fact, which the webhook dispatcher announces like any other. Safe to
 * repeat, as every job must be: a notice already given is not given again.
 */
@Injectable()
export class RightsDeadlinesProcessor implements JobProcessor<RightsDeadlinesJob, number> {
  private readonly logger = new Logger('RightsDeadlines');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly openRequests: OpenRequestsReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * While the read model is rebuilt (decision 0078) its list of open
   * requests is not whole: the run waits for it rather than notice from a
   * part, or fail into the failed set for something that heals by itself.
   * Shutdown's signal ends the wait, and the job is run again.
   */
  async process(_job: unknown, signal: AbortSignal): Promise<number> {
    for (;;) {
      try {
        const noticed = await noticeRightsRequestDeadlines({ store: this.store, readModel: this.openRequests.readModel }, { actor: 'worker:rights-deadlines', correlationId: randomUUID(), now: this.clock.now() });
        if (noticed > 0) this.logger.log(`${noticed} rights request deadline notices recorded`);
        return noticed;
      } catch (error) {
        if (!isReadModelUnavailable(error) || signal.aborted) throw error;
        await sleepUnlessAborted(REBUILD_POLL_MS, signal);
      }
    }
  }
}
