/**
 * Run by the SQLite adapter's tests as a separate process: opens the store
 * file given as the first argument and appends one event to the stream given
 * as the second, as the CLI would beside a running service.
 */
import { SqliteEventStore } from '@ledger/event-store';
import { newEvent } from './event-store.contract';

async function main(): Promise<void> {
  const [filePath, streamId] = process.argv.slice(2);
  const store = new SqliteEventStore(filePath);
  try {
    const result = await store.append(streamId, [newEvent('child.appended')], 'no_stream');
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
