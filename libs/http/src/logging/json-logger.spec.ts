import { Writable } from 'node:stream';
import { JsonLogger, createJsonLogger } from './json-logger';
import { scrubLogText } from './log-scrubbing';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createJsonLogger({ level: 'trace', destination }), lines };
}

describe('scrubLogText', () => {
  it.each([
    ['a request path with its query', 'Route GET:/embed/t/sessions/s?token=abc&x=1 not found', 'Route GET:[redacted] not found'],
    ['a request path as Nest quotes it', 'Cannot POST /nope/segment-9f2c', 'Cannot POST [redacted]'],
    ['a path with its query', 'redirect to /embed/t/sessions/s?token=abc&x=1', 'redirect to /embed/t/sessions/s?[redacted]'],
    ['a URL with its query', 'fetch https://hooks.example/in?secret=s3 failed', 'fetch https://hooks.example/in?[redacted] failed'],
    ['a URL without a path', 'POST https://hooks.example?secret=s3', 'POST https://hooks.example?[redacted]'],
    ['user info in a URL', 'connect redis://:hunter2@10.0.0.5:6379 refused', 'connect redis://[redacted]@10.0.0.5:6379 refused'],
    ['a bearer credential', 'header was "Bearer lk_0a1b_c2d3"', 'header was "Bearer [redacted]"'],
    ['an API key', 'key lk_8f14e45f_AbC-d_e9 unknown', 'key lk_[redacted] unknown'],
    ['an embed result secret', 'embsec_QUJDREVGR0g=', 'embsec_[redacted]'],
    ['a webhook secret', 'secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'secret whsec_[redacted]'],
    ['a RUT with dots', 'customer 12.345.678-5 conflicts', 'customer [redacted] conflicts'],
    ['a RUT without dots', 'customer 7654321-K conflicts', 'customer [redacted] conflicts'],
    ['the text JSON.parse quotes', `Unexpected token 'x', "{"value":"12"... is not valid JSON`, `Unexpected token 'x', "[redacted]" is not valid JSON`],
  ])('masks %s', (_what, text, scrubbed) => {
    expect(scrubLogText(text)).toBe(scrubbed);
  });

  it.each([
    'unhandled Error: internal detail that must stay in the logs',
    'projection customers: the event store subscription ended; retrying',
    'Mapped {/v1/redec/consents/:redecConsentId, GET} route',
    'request 3f0c2a9e-1b7d-4c55-9a0e-2f9d8c7b6a51 took 12 ms at 2026-01-05',
    '    at ProblemFilter.catch (/srv/libs/http/src/problem/problem.filter.ts:18:62)',
    'Is the store open?',
  ])('leaves text without a value alone: %s', (text) => {
    expect(scrubLogText(text)).toBe(text);
  });
});

describe('createJsonLogger', () => {
  it('masks values in messages, in the fields Nest passes as text and in errors, whatever the logger', () => {
    const { logger, lines } = capture();
    logger.child({ requestId: 'r-1' }).info('Route GET:/v1/x?code=ABC not found');
    logger.error({ context: 'http', stack: 'Error: GET /v1/y?token=T\n    at f (/srv/a.ts:1:1)' }, 'unhandled');
    logger.warn({ err: new Error('Bearer lk_a_b refused for 12.345.678-5') }, 'failed');
    expect(lines.map((line) => [line.msg, line.stack, (line.err as { message?: string } | undefined)?.message])).toEqual([
      ['Route GET:[redacted] not found', undefined, undefined],
      ['unhandled', 'Error: GET [redacted]\n    at f (/srv/a.ts:1:1)', undefined],
      ['failed', undefined, 'Bearer [redacted] refused for [redacted]'],
    ]);
    expect(JSON.stringify((lines[2].err as { stack: string }).stack)).not.toContain('lk_a_b');
    expect(lines[0].requestId).toBe('r-1');
  });

  it('logs a request as its method and route pattern, never its path, query, headers or address', () => {
    const { logger, lines } = capture();
    const request = { method: 'GET', url: '/embed/t/sessions/s?token=abc', routeOptions: { url: '/embed/:tenantId/sessions/:sessionId' }, headers: { authorization: 'Bearer k' }, ip: '10.1.2.3' };
    logger.info({ req: request }, 'matched');
    logger.info({ req: { ...request, is404: true, routeOptions: {} } }, 'unmatched');
    expect(lines.map((line) => line.req)).toEqual([
      { method: 'GET', route: '/embed/:tenantId/sessions/:sessionId' },
      { method: 'GET', route: '(unmatched)' },
    ]);
  });

  it('redacts credentials, evidence bytes and identifiers under any key of an object, up to four levels deep', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        headers: { authorization: 'Bearer k', cookie: 'page=t', 'set-cookie': 'page=t' },
        session: { token: 't', csrf: 'c', resultSecret: 'embsec_x', pageToken: 'p' },
        endpoint: { secret: 'whsec_x' },
        request: { body: { userReference: 'cliente-1', identifiers: [{ value: '12345678-5' }], evidence: { contentBase64: 'QUJD' }, representation: { identifierRutInput: '1-9' } } },
        config: { masterKey: 'aa', apiKey: 'lk_x' },
        kept: { sessionId: 's-1' },
      },
      'an object a caller should not have logged',
    );
    const line = JSON.stringify(lines[0]);
    for (const value of ['Bearer k', 'page=t', '"t"', '"c"', 'embsec_x', '"p"', 'whsec_x', 'cliente-1', '12345678-5', 'QUJD', '1-9', '"aa"', 'lk_x']) {
      expect(line).not.toContain(value);
    }
    expect(lines[0].kept).toEqual({ sessionId: 's-1' });
  });
});

describe('JsonLogger', () => {
  it("writes Nest's start-up narration at debug and every other `log` at info", () => {
    const { logger, lines } = capture();
    const nest = new JsonLogger(logger);
    nest.log('Mapped {/v1/tenant-settings, GET} route', 'RouterExplorer');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('Workers running for queues: webhook-deliveries', 'Queues');
    nest.error('Nest could not start', 'NestApplication');
    expect(lines.map(({ level, context }) => [level, context])).toEqual([
      [20, 'RouterExplorer'],
      [20, 'InstanceLoader'],
      [30, 'Queues'],
      [50, 'NestApplication'],
    ]);
  });
});
