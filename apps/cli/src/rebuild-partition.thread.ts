import { parentPort, workerData } from 'node:worker_threads';
import { createEventStore } from '@ledger/event-store';
import { createRedis } from '@ledger/platform';
import { ProjectionRunner } from '@ledger/projections';
import { PROJECTIONS } from '../../api/src/projections';
import type { FromRebuildPartition, RebuildPartitionData } from './rebuild-partitions';

/** One partition of `ledger projections rebuild --partitions N` (rebuild-partitions.ts), on a thread of its own. */
async function main(port: NonNullable<typeof parentPort>, data: RebuildPartitionData): Promise<void> {
  const post = (message: FromRebuildPartition) => port.postMessage(message);
  const store = createEventStore(data.config, { create: false });
  const redis = createRedis(data.config.redis, 'ledger-cli-partition', { maxRetriesPerRequest: 3 });
  try {
    const runner = new ProjectionRunner({ store, redis, prefix: data.config.redisPrefix, projections: PROJECTIONS });
    const events = await runner.fillPartition(data.names, data.partition, data.until, (progress) => post({ kind: 'progress', progress }));
    post({ kind: 'done', events });
  } finally {
    redis.disconnect();
    await store.close();
  }
}

if (!parentPort) throw new Error('rebuild-partition.thread runs as a worker thread of the CLI');
// A failure is an unhandled rejection, which ends the thread: the CLI's thread receives it as the worker's 'error'.
void main(parentPort, workerData as RebuildPartitionData);
