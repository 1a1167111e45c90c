import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runEventStoreBench } from './event-store.bench';

/**
 * `npm run bench`: runs every benchmark, prints a summary on stdout (progress
 * on stderr) and writes the figures to bench/results/.
 */
const TARGET_RATIO_64_WRITERS = 0.7;

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results = await runEventStoreBench(log);

  const lines = results.map(
    (r) =>
      `${r.name.padEnd(36)} store ${format(r.storeEventsPerSecond)} ev/s   raw ${format(r.rawEventsPerSecond)} ev/s   ` +
      `ratio ${r.ratio.toFixed(2)}   appends/tx ${r.appendsPerTransaction.toFixed(1)}   ` +
      `cpu/event store ${r.storeCpuMicrosPerEvent.toFixed(0)} us, raw ${r.rawCpuMicrosPerEvent.toFixed(0)} us`,
  );
  const writers64 = results.find((r) => r.writers === 64 && r.batchSize === 1);
  const met = writers64 !== undefined && writers64.ratio >= TARGET_RATIO_64_WRITERS;
  process.stdout.write(
    [
      'SQLite event store, durable appends (WAL, synchronous=FULL)',
      ...lines,
      `target: 64 writers >= ${TARGET_RATIO_64_WRITERS.toFixed(2)} of raw: ${met ? 'met' : 'NOT met'}` +
        (writers64 ? ` (${writers64.ratio.toFixed(2)})` : ''),
      '',
    ].join('\n'),
  );

  // `npm run` starts in the project root, whether this runs compiled or through ts-node.
  const resultsDir = resolve('bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'event-store.json');
  const document = { measuredAt: new Date().toISOString(), node: process.version, scenarios: results };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  log(`results written to ${file}`);
}

function format(eventsPerSecond: number): string {
  return Math.round(eventsPerSecond).toLocaleString('en-US').padStart(9);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
