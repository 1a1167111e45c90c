import type { QueueDeclaration } from '@ledger/queues';
import { WeeklyReportsProcessor } from './weekly-reports.processor';

/** One job a week (a BullMQ job scheduler), and one at each start to catch up a run missed while the service was down. */
export const weeklyReportsQueue: QueueDeclaration = {
  name: 'weekly-reports',
  processor: WeeklyReportsProcessor,
  concurrency: 1,
  defaultJobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 5_000 },
    removeOnComplete: { age: 30 * 24 * 3600, count: 100 },
    removeOnFail: false,
  },
};
