import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { queueToken } from '@ledger/queues';
import { WEEKLY_REPORTS_CRON } from '@ledger/redec';
import { weeklyReportsQueue } from './weekly-reports.queue';

/**
 * Keeps the weekly job scheduler in Redis (Saturday 01:00 America/Santiago;
 * upserting is idempotent, so every instance may do it at start) and asks
 * for a catch-up run at each start: the run due now, which requests nothing
 * when the week's reports exist already.
 */
@Injectable()
export class WeeklyReportsScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('weekly-reports');

  constructor(@Inject(queueToken(weeklyReportsQueue.name)) private readonly queue: Queue) {}

  onApplicationBootstrap(): void {
    // Not awaited: with Redis down at start, the service still starts and serves; the queue's connection sends these once Redis is back.
    void this.schedule().catch((error: unknown) => this.logger.error(`weekly reports not scheduled: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async schedule(): Promise<void> {
    await this.queue.upsertJobScheduler('weekly-reports', { ...WEEKLY_REPORTS_CRON }, { name: 'weekly' });
    await this.queue.add('catch-up', {});
  }
}
