import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp } from './support/api-app';
import { openConsentPage } from './support/consent-page';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError } from './support/expectations';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// What the service writes to its log, read from the production app factory
// (createApiApp, what `npm start` runs) at the most verbose level: every
// secret and personal value a request carries is sent on purpose, and none
// of them may appear in any line, Fastify's own request lines included.

const PUBLIC_URL = 'http://127.0.0.1:3998';

describe('logs: no secret, query value or identifier in any line', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let apiKey: string;
  /** Every value that must never be logged, with what it is, for a readable failure. */
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string) => {
    secrets.set(value, what);
    return value;
  };

  let nextRutBody = 24_000_000;
  const rut = () => keep('RUT', rutOf((nextRutBody += 7919)));
  const verifiedRut = (value: string) => ({ system: 'cl-sii', type: 'rut', value, verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 60_000 } });
  const auth = () => ({ Authorization: `Bearer ${apiKey}` });

  /** Where the current test's lines start. */
  let firstLine = 0;

  /** Every kept value found in the lines the current test made the service write. */
  function leaks(): string[] {
    const log = JSON.stringify(api.logs.slice(firstLine));
    return [...secrets].filter(([value]) => log.includes(value)).map(([value, what]) => `${what}: ${value}`);
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external', LOG_LEVEL: 'trace' });
    apiKey = keep('API key', (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey);
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  beforeEach(() => {
    firstLine = api.logs.length;
  });

  afterEach(() => {
    // The requests were logged (Fastify's own lines at info level): the check below reads real lines.
    expect(api.logs.slice(firstLine).some((line) => line.msg === 'request completed')).toBe(true);
    expect(leaks()).toEqual([]);
  });

  it('the embed flow: opening a session, the page and the decision', async () => {
    const published = await api.http
      .post('/v1/configurations')
      .set(auth())
      .send({ ...redecConfiguration({ templateKey: `embedded-${randomUUID()}` }), captureTiming: 'embedded', embed: { allowedOrigins: ['https://www.bank.example'] } });
    expect(published.status).toBe(201);
    const opened = await api.http
      .post('/v1/embed/sessions')
      .set(auth())
      .send({ configurationId: published.body.configurationId, userReference: `cliente-${randomUUID()}`, identifiers: [verifiedRut(rut())], returnUrl: 'https://www.bank.example/back' });
    expect(opened.status).toBe(201);
    keep('embed result secret', opened.body.resultSecret);
    keep('consent page token', new URL(opened.body.url).searchParams.get('token')!);

    const page = await openConsentPage(api, opened.body.url);
    expect(page.exchange.status).toBe(303);
    expect(page.page.status).toBe(200);
    keep('csrf value', page.hidden.csrf);
    const decided = await api.http
      .post(page.action!)
      .set({ origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin', cookie: page.cookie! })
      .type('form')
      .send({ ...page.hidden, decision: 'accept' });
    expect(decided.status).toBe(303);
    keep('result signature', new URL(decided.headers.location).searchParams.get('signature')!);
  });

  it('a grant of a customer resolved inline with a RUT, with its recording held by the service, and reads by query', async () => {
    const templateKey = keep('template key in a query', `phone-${randomUUID()}`);
    const published = await api.http.post('/v1/configurations').set(auth()).send(redecConfiguration({ templateKey, channel: 'phone' }));
    expect(published.status).toBe(201);
    const interaction = await api.http
      .post('/v1/redec/consent-interactions')
      .set(auth())
      .send({ configurationId: published.body.configurationId, userReference: keep('user reference', `cliente-${randomUUID()}`), identifiers: [verifiedRut(rut())] });
    expect(interaction.status).toBe(201);
    const recording = keep('evidence content', Buffer.from(`grabación ${randomUUID()}`).toString('base64'));
    const occurredAt = Date.now() - 60_000;
    const grant = await api.http
      .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
      .set(auth())
      .set('Idempotency-Key', keep('idempotency key', `grant-${randomUUID()}`))
      .send({ occurredAt, sourceSystem: 'call-center', sourceReference: 'call-1', evidence: { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', contentBase64: recording } });
    expect(grant.status).toBe(201);

    const byCode = await api.http.get('/v1/redec/consents').query({ internalConsentCode: keep('internal consent code in a query', grant.body.internalConsentCode) }).set(auth());
    expect(byCode.status).toBe(200);
    const compliance = await api.http
      .get(`/v1/customers/${interaction.body.customerId}/consent-compliance`)
      .query({ templateKey })
      .set(auth());
    expect(compliance.status).toBe(200);
  });

  it('refused requests: a body carrying a RUT refused field by field, malformed JSON, an unknown key and an unknown route with a query', async () => {
    const value = rut();
    expectValidationError(
      await api.http.post('/v1/customers/resolve').set(auth()).send({ userReference: 'cliente-x', identifiers: [{ system: 'cl-sii', type: 'rut', value, surplus: value }] }),
      [{ field: 'identifiers[0].surplus', reason: 'unknown_property' }],
    );
    const malformed = await api.http.post('/v1/customers/resolve').set(auth()).set('content-type', 'application/json').send(`{"userReference":"x","identifiers":[{"value":"${rut()}"`);
    expectProblem(malformed, 400, 'VALIDATION_ERROR');
    const unknownKey = keep('unknown API key', `lk_${randomUUID()}`);
    expectProblem(await api.http.get('/v1/redec/consents').query({ internalConsentCode: keep('query value', 'Q'.repeat(20)) }).set('Authorization', `Bearer ${unknownKey}`), 401, 'UNAUTHENTICATED');
    expectProblem(await api.http.get(`/v1/no-such-route?token=${keep('query value', randomUUID())}`).set(auth()), 404, 'NOT_FOUND');
  });

  it('secrets and RUTs in the paths, queries and headers of matched and unmatched routes, refused before or after routing', async () => {
    const body = (nextRutBody += 7919);
    const plain = keep('RUT without dots', rutOf(body));
    const dotted = keep('RUT with dots', `${String(body).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${plain.slice(-1)}`);
    const values = [apiKey, keep('webhook secret', `whsec_${randomUUID()}`), keep('embed secret', `embsec_${randomUUID()}`), plain, dotted];
    // A value that no scrubbing rule recognises: only a log that never writes the path keeps it out.
    const opaque = keep('opaque path segment', `segment-${randomUUID()}`);
    for (const value of [...values, opaque]) {
      const carried = { 'x-carried': value };
      expect((await api.http.get(`/v1/redec/consents/${value}`).query({ q: value }).set(auth()).set(carried)).status).toBeGreaterThanOrEqual(400);
      expectProblem(await api.http.get(`/v1/redec/consents/${value}`).set('Authorization', `Bearer lk_${value}`), 401, 'UNAUTHENTICATED');
      expectProblem(await api.http.get(`/nope/${value}`).query({ q: value }).set(carried), 404, 'NOT_FOUND');
      expectProblem(await api.http.get(`/nope/${value}`).set(auth()), 404, 'NOT_FOUND');
      const badJson = await api.http.post(`/v1/customers/resolve?q=${value}`).set(auth()).set('content-type', 'application/json').send(`{"userReference":"${value}"`);
      expectProblem(badJson, 400, 'VALIDATION_ERROR');
      // Not percent-encoded UTF-8: refused by routing, before any hook.
      expect((await api.http.get(`/v1/redec/consents/${value}%E0%A4%A`).set(auth())).status).toBe(400);
    }
    const routes = new Set(api.logs.slice(firstLine).flatMap((line) => (line.msg === 'request completed' ? [(line.req as { route: string }).route] : [])));
    expect([...routes].sort()).toEqual(['(unmatched)', '/v1/customers/resolve', '/v1/redec/consents/:redecConsentId']);
  });

  it('a server fault: the store gone under a request with a key and a query answers 500, logged with its stack and nothing else', async () => {
    // A second instance of the service on the same data; its event store is closed under it.
    const broken = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external', LOG_LEVEL: 'trace' });
    try {
      await broken.store.close();
      const response = await broken.http
        .get(`/v1/customers/${randomUUID()}/consent-compliance`)
        .query({ templateKey: keep('query value', `template-${randomUUID()}`) })
        .set(auth());
      expectProblem(response, 500, 'INTERNAL_ERROR');
      const fault = broken.logs.find((line) => line.level === 50 && line.requestId === response.headers['x-request-id']);
      expect(String(fault?.stack)).toMatch(/\n\s+at /);
      // Read by the checks after each test, with the first instance's lines.
      api.logs.push(...broken.logs);
    } finally {
      await broken.close();
    }
  });
});
