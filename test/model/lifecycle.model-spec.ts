import fc from 'fast-check';
import { sequences } from './commands';
import { runSequence } from './run-sequence';

/**
 * Issue 12: the whole REDEC lifecycle, thousands of random command sequences
 * per run, each against the real deciders (lifecycle-system.ts) and an
 * independent reference model (reference-model.ts), compared after every
 * step, with the invariants checked on their own (invariants.ts).
 *
 * LEDGER_MODEL_RUNS sets how many sequences (`npm test` keeps the default;
 * `npm run test:model` runs many more). A failure prints the shrunk sequence,
 * the seed and the path; LEDGER_MODEL_SEED and LEDGER_MODEL_PATH replay it.
 */
const RUNS = Number(process.env.LEDGER_MODEL_RUNS ?? 10_000);
const SEED = process.env.LEDGER_MODEL_SEED === undefined ? undefined : Number(process.env.LEDGER_MODEL_SEED);
const PATH = process.env.LEDGER_MODEL_PATH;
const MAX_COMMANDS = 40;

describe('the REDEC lifecycle against its reference model', () => {
  it(
    PATH === undefined ? `agrees with the model and keeps the invariants over ${RUNS} random sequences` : `replays seed ${SEED}, path ${PATH}`,
    () => {
      fc.assert(
        fc.property(sequences(MAX_COMMANDS), (sequence) => runSequence(sequence).failure === null),
        { numRuns: RUNS, seed: SEED, path: PATH, reporter },
      );
    },
    // A few milliseconds a sequence, generously, and the shrinking after a failure.
    60_000 + RUNS * 20,
  );
});

/** fast-check's report, with the shrunk sequence run again and printed as numbered steps. */
function reporter(details: fc.RunDetails<[ReturnType<typeof sequences> extends fc.Arbitrary<infer S> ? S : never]>): void {
  if (!details.failed) return;
  const replay = `LEDGER_MODEL_SEED=${details.seed} LEDGER_MODEL_PATH=${details.counterexamplePath} npm run test:model`;
  if (!details.counterexample) throw new Error(`${fc.defaultReportMessage(details)}\nReplay: ${replay}`);
  const run = runSequence(details.counterexample[0]);
  throw new Error(
    [
      `The lifecycle broke after ${details.numRuns} sequences (shrunk ${details.numShrinks} times); seed ${details.seed}, path ${details.counterexamplePath}.`,
      `Replay: ${replay}`,
      '',
      ...run.lines,
      '',
      `At step ${run.lines.length - 1}: ${run.failure}`,
    ].join('\n'),
  );
}
