import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { queueToken } from '@ledger/queues';
import { REPORT_SCHEDULES } from '@ledger/redec';
import { scheduledReportsQueue } from './scheduled-reports.queue';

/**
 * Keeps each schedule's job scheduler in Redis (upserting is idempotent, so
 * every instance may do it at start) and asks for a catch-up run of each at
 * every start: the run due now, which requests nothing when its files exist
 * already.
 */
@Injectable()
export class ScheduledReportsScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('scheduled-reports');

  constructor(@Inject(queueToken(scheduledReportsQueue.name)) private readonly queue: Queue) {}

  onApplicationBootstrap(): void {
    // Not awaited: with Redis down at start, the service still starts and serves; the queue's connection sends these once Redis is back.
    void this.schedule().catch((error: unknown) => this.logger.error(`reports not scheduled: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async schedule(): Promise<void> {
    for (const { name, cron } of REPORT_SCHEDULES) {
      await this.queue.upsertJobScheduler(name, { ...cron }, { name, data: { schedule: name } });
      await this.queue.add('catch-up', { schedule: name });
    }
  }
}
