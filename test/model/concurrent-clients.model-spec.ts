import fc from 'fast-check';
import { ConcurrentScenario, concurrentScenarios, runConcurrently } from './concurrent-clients';

/**
 * Issue 29, decision 0055: clients racing on one consent record no decision
 * on a stale read (concurrent-clients.ts), on the real embedded store.
 * Fewer runs than the pure properties: each opens a store.
 */
const RUNS = Math.max(50, Math.ceil(Number(process.env.LEDGER_MODEL_RUNS ?? 10_000) / 50));
const SEED = process.env.LEDGER_MODEL_SEED === undefined ? undefined : Number(process.env.LEDGER_MODEL_SEED);
const PATH = process.env.LEDGER_MODEL_PATH;

describe('the REDEC lifecycle under concurrent clients', () => {
  it(
    PATH === undefined ? `records no decision on a stale read over ${RUNS} random interleavings` : `replays seed ${SEED}, path ${PATH}`,
    async () => {
      await fc.assert(
        fc.asyncProperty(concurrentScenarios, async (scenario) => (await runConcurrently(scenario)).violations.length === 0),
        { numRuns: RUNS, seed: SEED, path: PATH, reporter },
      );
    },
    60_000 + RUNS * 500,
  );
});

function reporter(details: fc.RunDetails<[ConcurrentScenario]>): void {
  if (!details.failed) return;
  const replay = `LEDGER_MODEL_SEED=${details.seed} LEDGER_MODEL_PATH=${details.counterexamplePath} npx jest test/model/concurrent-clients`;
  throw new Error(
    [
      `A decision was recorded on a stale read after ${details.numRuns} interleavings (shrunk ${details.numShrinks} times); seed ${details.seed}, path ${details.counterexamplePath}.`,
      `Replay: ${replay}`,
      `Clients: ${JSON.stringify(details.counterexample?.[0].clients)}`,
      details.errorInstance ? String(details.errorInstance) : '',
    ].join('\n'),
  );
}
