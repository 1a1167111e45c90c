import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingHttpHeaders, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { issueApiKey } from '@ledger/ledger';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { CuttableRelay } from './support/cuttable-relay';
import { expectProblem } from './support/expectations';
import { freePort } from './support/processes';
import { rutOf } from './support/redec-fixtures';

// Issue 13, item 3: rate limits per API key, and per client address on the
// routes that take no key, counted in the service's Redis, with a small
// LEDGER_RATE_LIMIT_PER_MINUTE. Each client address is a loopback address
// of its own (127.0.0.0/8), the connection's source as the service sees it.

// Above the readiness polls the test app makes from its own address before the tests start.
const LIMIT = 40;

/** A well-formed API key that no tenant holds. */
const randomKey = () => `lk_${randomBytes(12).toString('hex')}_${randomBytes(32).toString('base64url')}`;

type Answer = { status: number; headers: IncomingHttpHeaders; body: any };

/**
 * Budgets are counted in fixed one-minute windows: a run that spends one
 * must not straddle two, or the second window's fresh budget lets the request
 * that should be refused through. However loaded the machine, `spend` is run
 * until one run starts and ends within a window (it starts with more than
 * 15 s of its window left), each run with a client of its own (`run` 0, 1,
 * 2…), so a straddling run's spending does not count against the next.
 * Returns what the last run returned, for the test to judge.
 */
async function inOneWindow<T>(spend: (run: number) => Promise<T>): Promise<T> {
  const windowOf = (instant: number) => Math.floor(instant / 60_000);
  for (let run = 0; ; run += 1) {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const window = windowOf(Date.now());
    const result = await spend(run);
    if (windowOf(Date.now()) === window) return result;
  }
}

/** A GET from `localAddress` to the service listening on loopback at `port`. */
function getFrom(port: number, localAddress: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, localAddress, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text && /json/.test(response.headers['content-type'] ?? '') ? JSON.parse(text) : text || undefined }));
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
    const { tenantId } = await api.tenantKey(['consent:read']);
    const issue = async (scopes: string[]) => (await issueApiKey(api.store, { tenantId, scopes }, { actor: 'cli:test', correlationId: 'test', now: Date.now() })).apiKey;
    const sibling = await issue(['consent:read']);
    const read = (key: string) => fromAddress('127.0.0.2', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${key}` });

    const { reads, beyond, write, recorded } = await inOneWindow(async () => {
      const apiKey = await issue(['consent:write', 'consent:read']);
      const reads = [];
      for (let i = 0; i < LIMIT; i += 1) reads.push((await read(apiKey)).status);
      const beyond = await read(apiKey);
      const before = await api.store.headPosition();
      const write = await api.http
        .post('/v1/customers/resolve')
        .set('Authorization', `Bearer ${apiKey}`)
        .set('Idempotency-Key', randomUUID())
        .send({ userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(13_579_246) }] });
      return { reads, beyond, write, recorded: (await api.store.headPosition()) !== before };
    });
    expect(reads).toEqual(Array(LIMIT).fill(404));
    expectRateLimited(beyond);
    expectProblem(write, 429, 'TOO_MANY_REQUESTS');
    expect(recorded).toBe(false);

    expect((await read(sibling)).status).toBe(404);
  }, 180_000);

  it('limits each client address on public routes, and not a key used from that address', async () => {
    const address = (run: number) => `127.0.1.${run + 1}`;
    const { run, lives, beyond } = await inOneWindow(async (run) => {
      const lives = [];
      for (let i = 0; i < LIMIT; i += 1) lives.push((await fromAddress(address(run), '/health/live')).status);
      const beyond = await Promise.all(['/health/live', '/openapi.json', '/docs'].map((path) => fromAddress(address(run), path)));
      return { run, lives, beyond };
    });
    expect(lives).toEqual(Array(LIMIT).fill(200));
    beyond.forEach(expectRateLimited);

    expect((await fromAddress('127.0.0.4', '/health/live')).status).toBe(200);
    const { apiKey } = await api.tenantKey(['consent:read']);
    expect((await fromAddress(address(run), `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
  }, 180_000);

  it('counts failed authentications against the client address: random keys get 401, then 429 without the store being read, while a key from another address goes on', async () => {
    const reads = jest.spyOn(api.store, 'readStream');
    try {
      const { guesses, readsWithinTheBudget, beyond, readsBeyond } = await inOneWindow(async (run) => {
        const guess = () => fromAddress(`127.0.2.${run + 1}`, `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${randomKey()}` });
        const guesses = [];
        for (let i = 0; i < LIMIT; i += 1) guesses.push((await guess()).status);
        const readsWithinTheBudget = reads.mock.calls.length;
        const beyond = [];
        for (let i = 0; i < 5; i += 1) beyond.push(await guess());
        beyond.push(await fromAddress(`127.0.2.${run + 1}`, '/v1/configurations', { authorization: 'Bearer not-a-key' }));
        return { guesses, readsWithinTheBudget, beyond, readsBeyond: reads.mock.calls.length - readsWithinTheBudget };
      });
      expect(guesses).toEqual(Array(LIMIT).fill(401));
      expect(readsWithinTheBudget).toBeGreaterThanOrEqual(LIMIT);
      beyond.forEach(expectRateLimited);
      expect(readsBeyond).toBe(0);
    } finally {
      reads.mockRestore();
    }

    const { apiKey } = await api.tenantKey(['consent:read']);
    expect((await fromAddress('127.0.0.9', `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
  }, 180_000);

  describe('when Redis answers late', () => {
    let relay: CuttableRelay;
    let late: TestEnvironment;
    let service: ApiApp;
    let servicePort: number;

    beforeAll(async () => {
      relay = new CuttableRelay();
      late = testEnvironment({ REDIS_URL: await relay.listen() });
      service = await startApiApp(late, { LEDGER_RATE_LIMIT_PER_MINUTE: String(LIMIT), LEDGER_WORKERS: 'external' });
      servicePort = await listen(service);
    });
    afterAll(async () => {
      relay?.delayReplies(0);
      await service?.close();
      await relay?.close();
      await late?.dispose();
    });

    it('counts each request once when a count that Redis stored is reported again because its answer came after the timeout', async () => {
      const guess = (address: string) => getFrom(servicePort, address, `/v1/configurations/${randomUUID()}`, { authorization: `Bearer ${randomKey()}` });
      const { before, after, beyond } = await inOneWindow(async (run) => {
        const address = `127.0.4.${run + 1}`;
        // Longer than a flush waits for Redis (500 ms): the counts are stored, the answers given up, the counts sent again.
        relay.delayReplies(700);
        const before = [];
        for (let i = 0; i < LIMIT / 2; i += 1) before.push((await guess(address)).status);
        await sleep(1_600);
        relay.delayReplies(0);
        await sleep(500);
        const after = [];
        for (let i = 0; i < LIMIT / 2; i += 1) after.push((await guess(address)).status);
        return { before, after, beyond: await guess(address) };
      });
      expect(before).toEqual(Array(LIMIT / 2).fill(401));
      expect(after).toEqual(Array(LIMIT / 2).fill(401));
      expectRateLimited(beyond);
    }, 180_000);
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
      const beyond = await inOneWindow(async (run) => {
        for (let i = 0; i < LIMIT; i += 1) await live(`127.0.3.${run + 1}`);
        return live(`127.0.3.${run + 1}`);
      });
      expectRateLimited(beyond);
    }, 180_000);
  });
});
