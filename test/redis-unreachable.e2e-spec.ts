import { randomUUID } from 'node:crypto';
import { customerDocumentId } from '@ledger/ledger';
import { ReadModel } from '@ledger/projections';
import { redecStreams } from '@ledger/redec';
import { READ_YOUR_WRITES_TIMEOUT_MS } from '../apps/api/src/read-your-writes';
import { settlesWithin } from '@ledger/platform';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { CuttableRelay } from './support/cuttable-relay';
import { TestEnvironment, testEnvironment } from './support/environment';
import { LedgerAnsweredCall, expectRightAnswer, ledgerAnsweredCalls } from './support/ledger-answered-calls';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { redecConfiguration } from './support/redec-fixtures';
import { spawnApi } from './support/processes';
import { consoleBrowser } from './support/console';
import { createConsoleUser } from '@ledger/console';

// Decision 0079: while Redis cannot be reached, the service answers what the ledger alone answers without waiting for
// the read model, refuses at once (503 with Retry-After) what needs the model, and loses nothing it acknowledged.
describe('Redis out of reach', () => {
  let environment: TestEnvironment;
  let relay: CuttableRelay;
  let api: ApiApp;
  let tenantId: string;
  let apiKey: string;
  let consent: GrantedConsent;
  let configurationId: string;

  beforeAll(async () => {
    environment = testEnvironment();
    relay = new CuttableRelay();
    // Every connection of the service (read model, projections, queues, rate limits) goes through the relay.
    api = await startApiApp(environment, { REDIS_URL: await relay.listen() });
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:identity-assert', 'consent:read', 'consent:runtime']));
    consent = await redecConsents(api, apiKey).grantSettled();
    const published = await api.http
      .post('/v1/configurations')
      .set({ Authorization: `Bearer ${apiKey}` })
      .send(redecConfiguration({ templateKey: `outage-${randomUUID()}` }));
    expect(published.status).toBe(201);
    configurationId = published.body.configurationId;
  }, 60_000);
  afterAll(async () => {
    relay.up();
    await api.close();
    await relay.close();
    await environment.dispose();
  });

  it('answers writes, authorize and GET consent without waiting, refuses the model’s reads at once, and has every acknowledged fact in the model once Redis is back', async () => {
    const calls = ledgerAnsweredCalls(api, apiKey, consent, configurationId);
    const kinds = Object.keys(calls) as LedgerAnsweredCall[];
    const before = { configuration: (await calls.configuration()).body, consent: (await calls.consent()).body, lookup: (await calls.lookup()).body };

    relay.down();
    const health = await api.http.get('/health/ready');
    expect({ status: health.status, body: health.body }).toMatchObject({ status: 503, body: { status: 'not_ready', checks: { redis: 'down' } } });

    // Three rounds of every kind at once, all while Redis is out of reach.
    const answers: Array<{ kind: LedgerAnsweredCall; status: number; body: any; retryAfter?: string; tookMs: number }> = [];
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(
        kinds.map(async (kind) => {
          const sent = Date.now();
          const answer = await calls[kind]();
          answers.push({ kind, status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'], tookMs: Date.now() - sent });
        }),
      );
    }
    expect((await api.http.get('/health/ready')).status).toBe(503);
    relay.up();

    for (const answer of answers) expectRightAnswer(answer, before, 'read_model_unavailable');
    // Redis was out of reach throughout: the lookup, which only the model answers, was refused every time.
    expect(answers.filter((a) => a.kind === 'lookup').map((a) => a.status)).toEqual([503, 503, 503]);
    // No call waited for a model that could not absorb anything: a write no longer sits out the read-your-writes bound
    // (before decision 0079 each took it whole), and a read no longer hangs until Redis comes back.
    expect(answers.filter((a) => a.tookMs >= READ_YOUR_WRITES_TIMEOUT_MS).map((a) => a.kind)).toEqual([]);

    // Redis is back: the model catches up, and everything acknowledged while it was away is in it.
    await waitUntil(async () => (await api.http.get('/health/ready')).body.status === 'ready', 30_000);
    await waitUntil(async () => (await calls.lookup()).status === 200, 10_000);
    expect((await calls.lookup()).body).toEqual(before.lookup);
    const readModel = api.app.get(ReadModel);
    for (const answer of answers.filter((a) => a.kind === 'resolve')) {
      expect(await readModel.getDocument('customers', customerDocumentId(tenantId, answer.body.customerId))).toMatchObject({ customerId: answer.body.customerId });
    }
    for (const answer of answers.filter((a) => a.kind === 'authorize')) {
      const recorded = await api.store.readStream(redecStreams.access(tenantId, answer.body.decision.redecAccessId));
      expect(recorded.map((e) => e.type)).toEqual(['AccessDecided']);
    }
    for (const answer of answers.filter((a) => a.kind === 'capture')) {
      const captured = await api.http.get('/v1/redec/consents').query({ internalConsentCode: answer.body.internalConsentCode }).set({ Authorization: `Bearer ${apiKey}` });
      expect(captured.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([answer.body.redecConsentId]);
    }
  }, 90_000);

  it("keeps the console answering: a person signs in and reads a consent from the ledger, and what only the model answers is a page that says to retry, in the person's language", async () => {
    const email = 'en-la-caida@banco.example';
    const { initialPassword } = await createConsoleUser(api.store, { tenantId, email, role: 'viewer' }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    const browser = consoleBrowser(api);
    relay.down();
    try {
      // Sessions live in the ledger, never in Redis.
      const { session } = await browser.firstSignIn(email, initialPassword);
      const page = await browser.get(`/console/consents/${consent.redecConsentId}`, session);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`Consentimiento ${consent.internalConsentCode}`);
      const search = await browser.get(`/console/consents?by=internalConsentCode&value=${consent.internalConsentCode}`, session);
      expect(search.status).toBe(503);
      expect(search.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(Number(search.headers['retry-after'])).toBeGreaterThan(0);
      expect(search.text).toContain('No disponible por ahora');
    } finally {
      relay.up();
    }
    await waitUntil(async () => (await api.http.get('/health/ready')).body.status === 'ready', 30_000);
  }, 90_000);

  it('shuts down while Redis is out of reach instead of waiting for it to come back', async () => {
    const stopped = testEnvironment();
    const ownRelay = new CuttableRelay();
    try {
      const service = await startApiApp(stopped, { REDIS_URL: await ownRelay.listen() });
      ownRelay.down();
      // Before decision 0079 this never ended: connections held QUIT, and the queues their drain, until Redis came back.
      expect(await settlesWithin(service.close(), 20_000)).toBe(true);
    } finally {
      await ownRelay.close();
      await stopped.dispose();
    }
  }, 60_000);

  it('ends on SIGTERM, as an orchestrator stops it, while Redis is out of reach', async () => {
    const stopped = testEnvironment();
    const ownRelay = new CuttableRelay();
    try {
      const service = await spawnApi({ ...stopped.env, REDIS_URL: await ownRelay.listen() }, 60_000, { built: true });
      ownRelay.down();
      service.child.kill('SIGTERM');
      const ended = await settlesWithin(service.exited, 20_000);
      if (!ended) service.child.kill('SIGKILL');
      expect({ ended, exitCode: service.child.exitCode }).toEqual({ ended: true, exitCode: 0 });
    } finally {
      await ownRelay.close();
      await stopped.dispose();
    }
  }, 90_000);
});
