/**
 * Run by the adapters' tests as a separate process, as the CLI or a second
 * service would write beside a running one. Arguments: the store (a SQLite
 * file, or a postgres:// URL), a stream id, and optionally a number of
 * appends.
 *
 * - One append (the default): one event to the stream with `no_stream`;
 *   prints the append's result.
 * - N appends: N appends of one or two events, eight in flight at a time,
 *   spread with `any` over sixteen streams named after the given one, so
 *   that groups of several sizes commit while other processes write; prints
 *   how many events were appended.
 */
import { newEvent } from './event-store.contract';
import { openStoreAt } from './open-store-at';

const IN_FLIGHT = 8;
const STREAMS = 16;

async function main(): Promise<void> {
  const [target, streamId, count] = process.argv.slice(2);
  const appends = Number(count ?? '1');
  const store = openStoreAt(target);
  try {
    if (appends === 1) {
      const result = await store.append(streamId, [newEvent('child.appended')], 'no_stream');
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    let next = 0;
    let events = 0;
    const writer = async () => {
      for (let i = next++; i < appends; i = next++) {
        const batch = i % 3 === 0 ? [newEvent('child.appended'), newEvent('child.appended')] : [newEvent('child.appended')];
        await store.append(`${streamId}-${i % STREAMS}`, batch, 'any');
        events += batch.length;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, writer));
    process.stdout.write(`${JSON.stringify({ events })}\n`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
