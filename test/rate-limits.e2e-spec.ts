import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingHttpHeaders, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { issueApiKey } from '@ledger/ledger';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, recordsNothingAtAll } from './support/expectations';
import { freePort } from './support/processes';
import { rutOf } from './support/redec-fixtures';

// Issue 13, item 3: rate limits per API key, and per client address on the
// routes that take no key, counted in the service's Redis, with a small
// LEDGER_RATE_LIMIT_PER_MINUTE. Each client address is a loopback address
// of its own (127.0.0.0/8), the connection's source as the service sees it.

// Above the readiness polls the test app makes from its own address before the tests start.
const LIMIT = 40;

type Answer = { status: number; headers: IncomingHttpHeaders; body: any };

/**
 * Budgets are counted in fixed one-minute windows: a test that spends one
 * must not straddle two, or the second window's fresh budget lets the request
 * that should be refused through. Waits for the next window when the current
 * one has less than `needMs` left (a loaded machine takes seconds for 40 requests).
 */
async function withinOneWindow(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** A GET from `localAddress` to the service listening on loopback at `port`. */
function getFrom(port: number, localAddress: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, localAddress, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Listens on a loopback port, as a deployed service does, and answers it. */
function listen(api: ApiApp): Promise<number> {
  return new Promise((resolve) => {
    const server = api.app.getHttpServer();
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

describe('rate limits', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let port: number;

  const fromAddress = (localAddress: string, path: string, headers: Record<string, string> = {}) => getFrom(port, localAddress, path, headers);

  function expectRateLimited(answer: Answer): void {
    expect(answer.status).toBe(429);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });
    const retryAfter = Number(answer.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, { LEDGER_RATE_LIMIT_PER_MINUTE: String(LIMIT), LEDGER_WORKERS: 'external' });
    port = await listen(api);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('limits each API key: 429 with Retry-After beyond the limit, recording nothing, while another key of the tenant goes on', async () => {
    const { tenantId, apiKey } = await api.tenantKey(['consent:write', 'consent:read']);
    const sibling = (await issueApiKey(api.store, { tenantId, scopes: ['consent:read'] }, { actor: 'cli:test', correlationId: 'test', now: Date.now() })).apiKey;
    const read = (key: string) => fromAddress('127.0.0.2', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${key}` });

    await withinOneWindow();
    for (let i = 0; i < LIMIT; i += 1) expect((await read(apiKey)).status).toBe(404);
    expectRateLimited(await read(apiKey));
    const write = await recordsNothingAtAll(api, () =>
      api.http
        .post('/v1/customers/resolve')
        .set('Authorization', `Bearer ${apiKey}`)
        .set('Idempotency-Key', randomUUID())
        .send({ userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(13_579_246) }] }),
    );
    expectProblem(write, 429, 'TOO_MANY_REQUESTS');

    expect((await read(sibling)).status).toBe(404);
  });

  it('limits each client address on public routes, and not a key used from that address', async () => {
    await withinOneWindow();
    for (let i = 0; i < LIMIT; i += 1) expect((await fromAddress('127.0.0.3', '/health/live')).status).toBe(200);
    expectRateLimited(await fromAddress('127.0.0.3', '/health/live'));
    expectRateLimited(await fromAddress('127.0.0.3', '/openapi.json'));
    expectRateLimited(await fromAddress('127.0.0.3', '/docs'));

    expect((await fromAddress('127.0.0.4', '/health/live')).status).toBe(200);
    const { apiKey } = await api.tenantKey(['consent:read']);
    expect((await fromAddress('127.0.0.3', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
  });

  it('counts failed authentications against the client address: random keys get 401, then 429 without the store being read, while a key from another address goes on', async () => {
    const randomKey = () => `lk_${randomBytes(12).toString('hex')}_${randomBytes(32).toString('base64url')}`;
    const guess = () => fromAddress('127.0.0.8', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${randomKey()}` });
    const reads = jest.spyOn(api.store, 'readStream');
    try {
      await withinOneWindow();
      for (let i = 0; i < LIMIT; i += 1) expect((await guess()).status).toBe(401);
      const readsWithinTheBudget = reads.mock.calls.length;
      expect(readsWithinTheBudget).toBeGreaterThanOrEqual(LIMIT);
      for (let i = 0; i < 5; i += 1) expectRateLimited(await guess());
      expectRateLimited(await fromAddress('127.0.0.8', '/v1/configurations', { authorization: 'Bearer not-a-key' }));
      expect(reads.mock.calls.length).toBe(readsWithinTheBudget);
    } finally {
      reads.mockRestore();
    }

    const { apiKey } = await api.tenantKey(['consent:read']);
    expect((await fromAddress('127.0.0.9', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
  });

  describe('while Redis is down', () => {
    let redisServer: ChildProcess | undefined;
    let redisDir: string;
    let redisPort: number;
    let outage: TestEnvironment;
    let service: ApiApp;
    let servicePort: number;

    async function startRedis(): Promise<void> {
      redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''], { stdio: 'ignore' });
      await waitUntil(async () => {
        const probe = new Redis({ port: redisPort, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          probe.disconnect();
        }
      }, 10_000);
    }

    async function stopRedis(): Promise<void> {
      const server = redisServer!;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }

    const live = (localAddress: string) => getFrom(servicePort, localAddress, '/health/live');
    const warnings = () => service.logs.filter((line) => line.context === 'rate-limit').map((line) => String(line.msg));

    beforeAll(async () => {
      redisDir = mkdtempSync(join(tmpdir(), 'ledger-redis-'));
      redisPort = await freePort();
      await startRedis();
      outage = testEnvironment({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
      service = await startApiApp(outage, { LEDGER_RATE_LIMIT_PER_MINUTE: String(LIMIT), LEDGER_WORKERS: 'external' });
      servicePort = await listen(service);
    });
    afterAll(async () => {
      await service?.close();
      if (redisServer && redisServer.exitCode === null) await stopRedis();
      await outage?.dispose();
      rmSync(redisDir, { recursive: true, force: true });
    });

    it('lets requests through unlimited and says so in the log, then counts again once Redis is back', async () => {
      await stopRedis();
      const during = await Promise.all(Array.from({ length: LIMIT + 5 }, () => live('127.0.0.5')));
      expect(during.map((answer) => answer.status)).toEqual(Array(LIMIT + 5).fill(200));
      expect(warnings()).toEqual([expect.stringMatching(/^rate limits are not enforced: Redis cannot count requests/)]);
      expect(service.logs.find((line) => line.context === 'rate-limit')).toMatchObject({ level: 40 });

      await startRedis();
      // Ready again (the store, Redis and projections up), and the next request counted.
      await waitUntil(async () => (await getFrom(servicePort, '127.0.0.6', '/health/ready')).status === 200 && warnings().length === 2, 15_000, 250);
      expect(warnings()[1]).toMatch(/^rate limits are enforced again after \d+ ms; \d+ request\(s\) went through unlimited$/);
      await withinOneWindow();
      for (let i = 0; i < LIMIT; i += 1) await live('127.0.0.7');
      expectRateLimited(await live('127.0.0.7'));
    }, 60_000);
  });
});
