import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import type { JobProcessor } from '@ledger/queues';
import { noticeRightsRequestDeadlines } from '@ledger/redec';

/** The scheduled run carries nothing: it gives every open request the notice it calls for as of the service clock when it runs. */
export type RightsDeadlinesJob = Record<string, never>;

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
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async process(): Promise<number> {
    const noticed = await noticeRightsRequestDeadlines({ store: this.store, readModel: this.readModel }, { actor: 'worker:rights-deadlines', correlationId: randomUUID(), now: this.clock.now() });
    if (noticed > 0) this.logger.log(`${noticed} rights request deadline notices recorded`);
    return noticed;
  }
}
