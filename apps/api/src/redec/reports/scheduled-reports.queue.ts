import type { QueueDeclaration } from '@ledger/queues';
import type { ReportSchedule } from '@ledger/redec';
import { ScheduledReportsProcessor } from './scheduled-reports.processor';

/**
 * The reports made on a schedule: one job per run of each schedule (a
 * BullMQ job scheduler each: weekly RDC30 and RDC31, daily RDC40), and one
 * per schedule at each start to catch up a run missed while the service was
 * down.
 */
export const scheduledReportsQueue: QueueDeclaration<{ schedule: ReportSchedule['name'] }> = {
  name: 'scheduled-reports',
  processor: ScheduledReportsProcessor,
  concurrency: 1,
  defaultJobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 5_000 },
    removeOnComplete: { age: 30 * 24 * 3600, count: 100 },
    removeOnFail: false,
  },
};
