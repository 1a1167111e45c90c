import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { FUZZ_DEFAULTS, FailureKind, FuzzResult, runFuzz } from '../fuzz/fuzz';
import { failureClasses, summarize } from '../fuzz/report';
import { LARGE_UPLOADS } from '../fuzz/large-uploads';

const ROOT = join(__dirname, '..');
/** A tenth of `npm run fuzz`, with the same code and seed: its first thousand requests. */
const REQUESTS = 1_000;

/**
 * The fuzzing harness (fuzz/, docs/fuzzing.md) as part of `npm test`: the
 * built service, as `npm start` runs it, in a process of its own, seeded
 * through the operator CLI and the API, then 1,000 requests generated from
 * its own GET /openapi.json. The build is what runs in production and what
 * the RSS limit is meant for (the service under ts-node holds the compiler
 * too); `npm test` builds before jest starts, and this suite builds if
 * needed when run alone.
 */
describe(`fuzzing the built service from its OpenAPI description (${REQUESTS} requests, seed ${FUZZ_DEFAULTS.seed})`, () => {
  let result: FuzzResult;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    result = await runFuzz({ ...FUZZ_DEFAULTS, root: ROOT, requests: REQUESTS, progress: () => undefined });
    // The whole summary, with a reproduction of every failure class, for whoever reads a red run.
    process.stderr.write(summarize(result));
  }, 600_000);

  /** Each failure class of these kinds, with the routes it hit: what a red assertion shows. */
  const classesOf = (...kinds: FailureKind[]) =>
    failureClasses(result.failures.filter((failure) => kinds.includes(failure.kind))).map((c) => `${c.title}: ${[...c.operations.keys()].join(', ')}`);

  it('sends every request, to every operation of the API description and the public pages', () => {
    expect(result.requestsSent).toBe(REQUESTS);
    expect(result.largeUploadsSent).toBe(LARGE_UPLOADS);
    expect(result.operations).toBeGreaterThanOrEqual(49);
    expect(Object.values(result.histogram).reduce((a, b) => a + b, 0)).toBe(REQUESTS + LARGE_UPLOADS);
  });

  it('answers every request, and none with a 5xx', () => {
    expect(classesOf('5xx', 'no answer')).toEqual([]);
  });

  it('shows no secret or identifier in any answer (body or header) or log line', () => {
    expect(classesOf('leak in an answer', 'leak in the log')).toEqual([]);
  });

  it('records no fact for a refused request', () => {
    expect(classesOf('fact recorded by a refused request')).toEqual([]);
  });

  it('answers every request the API description promises a refusal with that status and reason', () => {
    expect(classesOf('promised refusal missing')).toEqual([]);
  });

  it('takes base64 evidence sent many at once, canonical, with escapes, or busy (503 SERVICE_BUSY), never refusing it as not base64', () => {
    expect(classesOf('valid upload refused')).toEqual([]);
  });

  it('keeps the service within 400 MB of resident memory', () => {
    expect(classesOf('RSS above the limit')).toEqual([]);
  });
});
