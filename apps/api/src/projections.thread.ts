import { parentPort, workerData } from 'node:worker_threads';
import { createEventStore } from '@ledger/event-store';
import { createRedis, reportRedisErrors } from '@ledger/platform';
import { ProjectionRunner, stopProjections } from '@ledger/projections';
import type { FromProjectionThread, ProjectionThreadData, ToProjectionThread } from './projection-thread.messages';
import { PROJECTIONS } from './projections';

/**
 * The API's projection thread (decision 0077): it follows the store and keeps
 * the read model on a thread of its own, so the thread that answers requests
 * does not also fold, encode and write every event, and reports its progress
 * to that thread, where commands wait on it to read their own writes.
 */
function main(port: NonNullable<typeof parentPort>, data: ProjectionThreadData): void {
  const post = (message: FromProjectionThread) => port.postMessage(message);
  const log = (level: 'warn' | 'error', message: string) => post({ kind: 'log', level, message });
  // The API thread made the store before starting this one: nothing is created here.
  const store = createEventStore(data, { create: false });
  const redis = reportRedisErrors(createRedis(data.redis, 'projections', { enableAutoPipelining: true }), 'the read model', (message) => log('error', message));
  const runner = new ProjectionRunner({ store, redis, prefix: data.redisPrefix, projections: PROJECTIONS, log, onProgress: (report) => post({ kind: 'progress', report }) });
  port.on('message', (message: ToProjectionThread) => {
    if (message.kind !== 'stop') return;
    // process.exit in a worker ends the thread, not the process: whatever the connections still hold goes with it.
    void stopProjections(runner, redis)
      .then(() => store.close())
      .finally(() => process.exit(0));
  });
  runner.start();
}

if (!parentPort) throw new Error('projections.thread runs as a worker thread of the API');
main(parentPort, workerData as ProjectionThreadData);
