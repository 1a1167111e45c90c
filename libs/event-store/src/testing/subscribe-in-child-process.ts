/**
 * Run by the adapters' tests as a separate process: subscribes to the store
 * (a SQLite file or a postgres:// URL) from the start, prints `ready` once
 * subscribed, and on the first event of type `test.stop` prints the
 * positions it was delivered before it, in delivery order, as one JSON array.
 */
import { openStoreAt } from './open-store-at';

export const STOP_EVENT_TYPE = 'test.stop';

async function main(): Promise<void> {
  const [target] = process.argv.slice(2);
  const store = openStoreAt(target);
  const positions: number[] = [];
  try {
    await store.headPosition();
    process.stdout.write('ready\n');
    following: for await (const page of store.subscribeToAll()) {
      for (const event of page) {
        if (event.type === STOP_EVENT_TYPE) break following;
        positions.push(event.position);
      }
    }
    process.stdout.write(`${JSON.stringify(positions)}\n`);
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
}
