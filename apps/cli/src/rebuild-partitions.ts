import { Worker } from 'node:worker_threads';
import { LedgerLocations, ledgerLocations, workerEntry } from '@ledger/platform';
import type { Partition, RebuildPartitions, RebuildProgress } from '@ledger/projections';

/** What a partition's thread is given: where the store and the read model are, and its share of the rebuild. */
export interface RebuildPartitionData {
  config: LedgerLocations;
  /** The projections rebuilt; all when absent. */
  names?: readonly string[];
  partition: Partition;
  until: number;
}

export type FromRebuildPartition = { kind: 'progress'; progress: RebuildProgress } | { kind: 'done'; events: number };

/**
 * `projections rebuild --partitions N` (decision 0087): each partition of
 * the rebuild filled on a worker thread of its own, with its own store and
 * Redis connections, so the folding runs on as many cores as partitions.
 */
export function rebuildPartitions(
  config: LedgerLocations,
  names: readonly string[] | undefined,
  count: number,
  onProgress: (partition: Partition, progress: RebuildProgress) => void,
): RebuildPartitions {
  const locations = ledgerLocations(config);
  return {
    count,
    fill: (index, until) =>
      new Promise((resolve, reject) => {
        const partition = { index, count };
        const workerData: RebuildPartitionData = { config: locations, names, partition, until };
        const worker = new Worker(workerEntry(__dirname, 'rebuild-partition.thread.js'), { workerData });
        let events: number | undefined;
        worker.on('message', (message: FromRebuildPartition) => {
          if (message.kind === 'progress') onProgress(partition, message.progress);
          else events = message.events;
        });
        worker.once('error', reject);
        worker.once('exit', (code) => (events !== undefined ? resolve(events) : reject(new Error(`partition ${index + 1} of ${count} ended (exit code ${code}) before it was filled`))));
      }),
  };
}
