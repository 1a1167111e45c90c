import { join } from 'node:path';
import { FUZZ_DEFAULTS, runFuzz } from './fuzz';
import { summarize } from './report';

/**
 * `npm run fuzz`: builds if sources changed (scripts/build-if-needed.js),
 * then runs the harness against the built service and prints the summary on
 * stdout (progress on stderr); exits 1 on any failure. See docs/fuzzing.md.
 *
 *   LEDGER_FUZZ_SEED      the seed (default 13): the same seed sends the same requests
 *   LEDGER_FUZZ_REQUESTS  how many (default 10,000)
 *   LEDGER_FUZZ_REPLAY    only these requests of the seed, e.g. `12,4077`
 */
async function main(): Promise<void> {
  const only = process.env.LEDGER_FUZZ_REPLAY?.split(',').map((index) => integer('LEDGER_FUZZ_REPLAY', index));
  const result = await runFuzz({
    // dist/fuzz/run.js: the repository root is two levels up.
    root: join(__dirname, '..', '..'),
    ...FUZZ_DEFAULTS,
    seed: integer('LEDGER_FUZZ_SEED', process.env.LEDGER_FUZZ_SEED ?? String(FUZZ_DEFAULTS.seed)),
    requests: integer('LEDGER_FUZZ_REQUESTS', process.env.LEDGER_FUZZ_REQUESTS ?? String(FUZZ_DEFAULTS.requests)),
    only,
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(summarize(result));
  if (result.failures.length > 0) process.exitCode = 1;
}

function integer(name: string, raw: string): number {
  if (!/^\d+$/.test(raw.trim())) throw new Error(`${name} must be a non-negative integer, not "${raw}"`);
  return Number(raw);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
