import type { QueueDeclaration } from '@ledger/queues';
import { ErasureResult } from '@ledger/redec';
import { RetentionErasureJob, RetentionErasureProcessor } from './retention-erasure.processor';

/** Erasure after the retention floor, run on LEDGER_RETENTION_ERASE_SCHEDULE (decision 0035). */
export const retentionErasureQueue: QueueDeclaration<RetentionErasureJob, ErasureResult[]> = {
  name: 'retention-erasure',
  processor: RetentionErasureProcessor,
  concurrency: 1,
  defaultJobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 60_000 },
    removeOnComplete: { count: 100 },
    // A failed run stays for an operator to read (`ledger queues status`); the next scheduled one tries again.
    removeOnFail: false,
  },
};

/** The one scheduler of the queue: upserted with the configured pattern, removed when the setting is unset. */
export const RETENTION_ERASURE_SCHEDULER = 'retention-erasure';
