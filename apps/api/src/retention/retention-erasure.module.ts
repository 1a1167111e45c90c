import { Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { InjectQueue } from '@ledger/queues';
import type { Queue } from 'bullmq';
import { RetentionErasureProcessor } from './retention-erasure.processor';
import { RETENTION_ERASURE_SCHEDULER, retentionErasureQueue } from './retention-erasure.queue';

/** Chile's time: a schedule reads as the bank's operators and the regulator read their days. */
const SCHEDULE_TIME_ZONE = 'America/Santiago';

/**
 * Keeps the queue's scheduler as configured: one BullMQ job scheduler (so
 * several API instances starting at once keep one), removed again when the
 * setting is unset, so that opting out needs no manual cleanup in Redis.
 */
@Injectable()
class RetentionErasureSchedule implements OnApplicationBootstrap {
  private readonly logger = new Logger('RetentionErasure');

  constructor(
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @InjectQueue(retentionErasureQueue.name) private readonly queue: Queue,
  ) {}

  /**
   * Not awaited: the service starts (and answers not ready) while Redis is
   * away, and the queue's commands wait for Redis to return; a pattern the
   * scheduler refuses is logged as an error.
   */
  onApplicationBootstrap(): void {
    this.apply().catch((error: Error) => this.logger.error(`LEDGER_RETENTION_ERASE_SCHEDULE could not be applied: ${error.message}`));
  }

  private async apply(): Promise<void> {
    const pattern = this.config.retentionEraseSchedule;
    if (pattern === undefined) await this.queue.removeJobScheduler(RETENTION_ERASURE_SCHEDULER);
    else await this.queue.upsertJobScheduler(RETENTION_ERASURE_SCHEDULER, { pattern, tz: SCHEDULE_TIME_ZONE }, { name: 'erase', data: {} });
    if (pattern !== undefined) this.logger.log(`erasure after the retention floor runs on "${pattern}" (${SCHEDULE_TIME_ZONE})`);
  }
}

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ providers: [RetentionErasureProcessor], exports: [RetentionErasureProcessor] })
export class RetentionErasureWorkerModule {}

/** The schedule; runs in the API process. */
@Module({ imports: [RetentionErasureWorkerModule], providers: [RetentionErasureSchedule] })
export class RetentionErasureModule {}
