import type { QueueDeclaration } from '@ledger/queues';
import { RightsDeadlinesJob, RightsDeadlinesProcessor } from './rights-deadlines.processor';

/** The deadline notices of rights requests, every LEDGER_RIGHTS_DEADLINE_CHECK_MS (decision 0069). */
export const rightsDeadlinesQueue: QueueDeclaration<RightsDeadlinesJob, number> = {
  name: 'rights-deadlines',
  processor: RightsDeadlinesProcessor,
  concurrency: 1,
  defaultJobOptions: {
    // The next run is never far: a failed one is left for an operator to read (`ledger queues status`), not retried.
    attempts: 1,
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
};

/** The one scheduler of the queue. */
export const RIGHTS_DEADLINES_SCHEDULER = 'rights-deadlines';
