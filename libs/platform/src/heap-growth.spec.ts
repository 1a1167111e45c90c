import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The workload of a catch-up, reduced: 60 MB kept alive, and batches of
 * parsed JSON that each live across a few event-loop turns (as a batch lives
 * across its Redis round trips), so they are promoted and die in the old
 * generation. Prints the largest heap it saw and what stays alive.
 */
const WORKLOAD = `
const { memoryUsage } = process;
const bound = process.argv.includes('bound');
if (bound) require(${JSON.stringify(join(__dirname, 'heap-growth'))}).boundHeapGrowth();
const kept = [];
for (let i = 0; i < 200000; i++) kept.push({ text: 'k'.repeat(120) + i, list: [i, i + 1] });
gc();
const live = memoryUsage().heapUsed;
let peak = 0;
const inFlight = [];
(async () => {
  for (let round = 0; round < 600; round++) {
    const batch = [];
    for (let i = 0; i < 2000; i++) batch.push(JSON.parse('{"data":"' + 'd'.repeat(200) + '","n":' + i + ',"meta":{"p":[1,2,3]}}'));
    inFlight.push(batch);
    if (inFlight.length > 8) inFlight.shift();
    await new Promise((resolve) => setImmediate(resolve));
    peak = Math.max(peak, memoryUsage().heapTotal);
  }
  process.stdout.write(JSON.stringify({ live, peak, kept: kept.length }));
})();
`;

function run(mode: 'bound' | 'default'): { live: number; peak: number } {
  const ran = spawnSync(process.execPath, ['--expose-gc', '-r', 'ts-node/register/transpile-only', '-e', WORKLOAD, mode], { encoding: 'utf8', timeout: 60_000 });
  if (ran.status !== 0) throw new Error(`workload failed: ${ran.stderr}`);
  return JSON.parse(ran.stdout);
}

describe('boundHeapGrowth', () => {
  it('keeps the heap of a promoting workload near its live data', () => {
    const { live, peak } = run('bound');
    // 20 % over the live data, plus the young generation (two semi-spaces of up to 16 MB each) and room for what
    // is allocated while a collection runs. Without the bound V8 let this heap reach 4 times the live data.
    expect(peak).toBeLessThan(live * 1.2 + 96 * 1024 * 1024);
  });
});
