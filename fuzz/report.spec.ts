import { Failure, FuzzResult } from './fuzz';
import { FuzzRequest } from './generate';
import { failureClasses, reproduction, summarize } from './report';

const request = (index: number, overrides: Partial<FuzzRequest> = {}): FuzzRequest => ({
  index,
  operation: 'POST /v1/configurations',
  strategy: 'body: deep nesting',
  target: 'body',
  method: 'POST',
  url: '/v1/configurations',
  headers: { Authorization: 'Bearer key_secret_0123456789', 'Content-Type': 'application/json' },
  auth: 'own tenant, every scope',
  body: Buffer.alloc(100 * (index + 1)),
  bodyDescription: '{"a":{"a":… (objects nested 1000 deep)',
  ...overrides,
});

const result = (failures: Failure[]): FuzzResult => ({
  seed: 13,
  requestsSent: 10_000,
  largeUploadsSent: 16,
  operations: 49,
  histogram: { '200': 9_000, '400': 998, '500': 2 },
  serverErrors: failures.filter((f) => f.kind === '5xx').length,
  noAnswers: 0,
  leaksInAnswers: failures.filter((f) => f.kind === 'leak in an answer').length,
  leaksInLog: 0,
  factsFromRefusedRequests: 0,
  promisedRefusalsMissing: failures.filter((f) => f.kind === 'promised refusal missing').length,
  peakRssBytes: 150 << 20,
  rssLimitBytes: 400 << 20,
  seconds: 300,
  failures,
  mask: (text) => text.replace('tok_0123456789abcdef', '«page token»'),
});

describe('failureClasses', () => {
  it('groups 5xx by the kind of request whatever the route, and leaks by what leaked where', () => {
    const failures: Failure[] = [
      { kind: '5xx', status: '500', request: request(3), detail: 'answer: …' },
      { kind: '5xx', status: '500', request: request(1, { operation: 'POST /v1/embed/sessions' }), detail: 'answer: …' },
      { kind: '5xx', status: '500', request: request(2, { strategy: 'value: deep nesting' }), detail: 'answer: …' },
      { kind: 'leak in an answer', status: '200', request: request(4, { strategy: 'valid' }), detail: 'page token in body' },
      { kind: 'leak in an answer', status: '200', request: request(5, { strategy: 'auth: none' }), detail: 'page token in body' },
    ];
    const classes = failureClasses(failures);
    expect(classes.map((c) => [c.title, c.failures.length])).toEqual([
      ['5xx (500) on body: deep nesting', 2],
      ['5xx (500) on value: deep nesting', 1],
      ['leak in an answer: page token in body', 2],
    ]);
    expect([...classes[0].operations]).toEqual([
      ['POST /v1/configurations', [3]],
      ['POST /v1/embed/sessions', [1]],
    ]);
    // The smallest request of the class is the one to reproduce.
    expect(classes[0].example.request?.index).toBe(1);
  });
});

describe('reproduction', () => {
  it('names the key instead of printing it, masks secrets, abbreviates the body, and says how to replay', () => {
    const lines = reproduction(request(7, { url: '/embed/t/sessions/s?token=tok_0123456789abcdef' }), 13, result([]).mask);
    const text = lines.join('\n');
    expect(text).not.toContain('key_secret_0123456789');
    expect(text).not.toContain('tok_0123456789abcdef');
    expect(lines).toEqual([
      'reproduce #7: POST /embed/t/sessions/s?token=«page token»   (body: deep nesting at body)',
      '  Authorization: own tenant, every scope',
      '  Content-Type: application/json',
      '  body (800 bytes): {"a":{"a":… (objects nested 1000 deep)',
      'replay: LEDGER_FUZZ_SEED=13 LEDGER_FUZZ_REPLAY=7 npm run fuzz',
    ]);
  });
});

describe('summarize', () => {
  it('prints the figures and PASSED when nothing failed', () => {
    const text = summarize(result([]));
    expect(text).toContain('fuzz: seed 13, 10000 requests sent to 49 operations, then 16 large evidence uploads at once, in 300 s');
    expect(text).toContain('status histogram: 200 ×9000, 400 ×998, 500 ×2');
    expect(text).toContain('5xx: 0   no answer: 0   leaks: 0 in answers, 0 in the log   facts from refused requests: 0   promised refusals missing: 0   peak RSS: 150 MB (limit 400 MB)');
    expect(text).toContain('PASSED: no failure');
  });

  it('prints every class with its routes and a reproduction when something failed', () => {
    const text = summarize(result([{ kind: '5xx', status: '500', request: request(3), detail: 'answer: {"code":"INTERNAL_ERROR"}' }]));
    expect(text).toContain('FAILED: 1 failures in 1 classes');
    expect(text).toContain('1. 5xx (500) on body: deep nesting (1)');
    expect(text).toContain('   POST /v1/configurations ×1 (#3)');
    expect(text).toContain('   reproduce #3: POST /v1/configurations');
  });
});
