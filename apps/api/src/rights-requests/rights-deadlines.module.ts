import { Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { InjectQueue } from '@ledger/queues';
import type { Queue } from 'bullmq';
import { OpenRequestsReadModel, RightsDeadlinesProcessor } from './rights-deadlines.processor';
import { RIGHTS_DEADLINES_SCHEDULER, rightsDeadlinesQueue } from './rights-deadlines.queue';

/** One BullMQ job scheduler, so several API instances starting at once keep one run at a time. */
@Injectable()
class RightsDeadlinesSchedule implements OnApplicationBootstrap {
  private readonly logger = new Logger('RightsDeadlines');

  constructor(
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @InjectQueue(rightsDeadlinesQueue.name) private readonly queue: Queue,
  ) {}

  /** Not awaited: the service starts (and answers not ready) while Redis is away, and the queue's commands wait for Redis to return. */
  onApplicationBootstrap(): void {
    this.queue
      .upsertJobScheduler(RIGHTS_DEADLINES_SCHEDULER, { every: this.config.rightsDeadlineCheckMs }, { name: 'notice', data: {} })
      .catch((error: Error) => this.logger.error(`the deadline notices of rights requests could not be scheduled: ${error.message}`));
  }
}

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ providers: [OpenRequestsReadModel, RightsDeadlinesProcessor], exports: [RightsDeadlinesProcessor] })
export class RightsDeadlinesWorkerModule {}

/** The schedule; runs in the API process. */
@Module({ imports: [RightsDeadlinesWorkerModule], providers: [RightsDeadlinesSchedule] })
export class RightsDeadlinesModule {}
