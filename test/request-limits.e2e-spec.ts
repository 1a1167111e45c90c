import { randomBytes, randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNothingAtAll } from './support/expectations';
import { answerToHeaders } from './support/raw-http';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// Issue 13, item 3 ("bounded work") and the finding "deeply nested JSON
// answers 500", through the production app factory: authentication before
// any body is read, per-route body limits, and a JSON parser that refuses
// bodies too deep or too large in shape before anything walks them.

const MINUTE = 60_000;
const KiB = 1024;
const MiB = 1024 * KiB;

// The certificate worker appends facts of its own; without it, a refused request can be checked to record nothing at all.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };

/** `[[[…]]]` `depth` levels deep. */
const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** An object nested `depth` levels deep, as a value: `{"a":{"a":…{}}}`. */
function nestedObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

/** 400 VALIDATION_ERROR for the shape of the whole body: no field to name. */
function expectRefusedAs(response: { status: number; headers: Record<string, string>; body: any }, reason: string): void {
  expectProblem(response, 400, 'VALIDATION_ERROR');
  expect(response.body.reason).toBe(reason);
}

describe('request limits', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let baseUrl: string;
  let key: string;
  let customerId: string;
  let phoneConfigurationId: string;
  let generalConfigurationId: string;

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const post = (path: string, body: string | object, headers: Record<string, string> = {}) =>
    api.http.post(path).set({ ...auth(), 'content-type': 'application/json', ...headers }).send(body);
  const audio = (bytes: number) => ({ kind: 'audio_recording', recordedAt: Date.now() - MINUTE, mediaType: 'audio/mpeg', contentBase64: Buffer.alloc(bytes, 7).toString('base64') });
  const capture = () => ({ occurredAt: Date.now() - MINUTE, sourceSystem: 'crm', sourceReference: `cap-${randomUUID()}` });

  async function openInteraction(path: '/v1/redec/consent-interactions' | '/v1/consent-interactions', configurationId: string): Promise<string> {
    const opened = await post(path, { configurationId, customerId });
    expect(opened.status).toBe(201);
    return opened.body.interactionId;
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    baseUrl = await new Promise<string>((resolve) => {
      const server = api.app.getHttpServer();
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
    key = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey;
    const published = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}`, channel: 'phone' }));
    expect(published.status).toBe(201);
    phoneConfigurationId = published.body.configurationId;
    const general = await post('/v1/configurations', { templateKey: `general-${randomUUID()}`, title: 'Grabaciones', text: 'Acepto.', channel: 'phone', captureTiming: 'deferred_external' });
    expect(general.status).toBe(201);
    generalConfigurationId = general.body.configurationId;
    const resolved = await post('/v1/customers/resolve', {
      userReference: `cliente-${randomUUID()}`,
      identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(17_654_321), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
    });
    expect(resolved.status).toBe(201);
    customerId = resolved.body.customerId;
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('authentication before the body', () => {
    it.each([
      ['no key', {}],
      ['an unknown key', { authorization: `Bearer lk_000000000000000000000000_${'A'.repeat(43)}` }],
    ])('answers a POST with %s and a 15 MB body 401 having received only its headers', async (_name, headers) => {
      for (const path of ['/v1/customers/resolve', `/v1/redec/consent-interactions/${randomUUID()}/grant`, '/v1/consent-decisions']) {
        const answer = await answerToHeaders(baseUrl, { method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, contentLength: 15 * MiB }, 10_000);
        expect({ path, status: answer.status, type: answer.headers['content-type'] }).toEqual({ path, status: 401, type: expect.stringMatching(/^application\/problem\+json/) });
        expect(JSON.parse(answer.body)).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      }
    });

    it('keeps health, metrics, the OpenAPI description and the consent page open without a key', async () => {
      for (const path of ['/health/live', '/health/ready', '/metrics', '/openapi.json']) {
        expect({ path, status: (await api.http.get(path)).status }).toEqual({ path, status: 200 });
      }
      const page = `/embed/pages/${randomBytes(60).toString('base64url')}`;
      const shown = await api.http.get(`${page}?token=unknown`);
      expect(shown.status).toBe(404);
      expect(shown.headers['content-type']).toMatch(/^text\/html/);
      // The page's own answer (an address this deployment did not make is an unknown page), not the API's 401.
      const decided = await api.http.post(`${page}/decision`).type('form').send({ csrf: 'x', decision: 'accept' });
      expect(decided.status).toBe(404);
      expect(decided.headers['content-type']).toMatch(/^text\/html/);
    });
  });

  describe('body limits', () => {
    it('refuses a body over 64 KiB on a route that takes no evidence with 413, recording nothing', async () => {
      const body = { userReference: 'x'.repeat(65 * KiB), identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(12_345_678) }] };
      const response = await recordsNothingAtAll(api, () => post('/v1/customers/resolve', body));
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a consent page form over 4 KiB with 413', async () => {
      const response = await api.http
        .post(`/embed/pages/${randomBytes(60).toString('base64url')}/decision`)
        .type('form')
        .send({ token: 'x'.repeat(5 * KiB), decision: 'accept' });
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('takes evidence bytes beyond 64 KiB on the REDEC grant, the general grant and the Multi-Consent decision', async () => {
      const redec = await post(`/v1/redec/consent-interactions/${await openInteraction('/v1/redec/consent-interactions', phoneConfigurationId)}/grant`, { ...capture(), evidence: audio(MiB) });
      expect(redec.status).toBe(201);
      const general = await post(`/v1/consent-interactions/${await openInteraction('/v1/consent-interactions', generalConfigurationId)}/grant`, { ...capture(), evidence: audio(MiB) });
      expect(general.status).toBe(201);
      const decision = await post(
        '/v1/consent-decisions',
        { customerId, ...capture(), items: [{ configurationId: phoneConfigurationId, decision: 'accepted', redec: { evidence: audio(MiB) } }] },
        { 'Idempotency-Key': randomUUID() },
      );
      expect(decision.status).toBe(201);
    });

    it('refuses a body over 16 MiB where evidence is uploaded with 413, before reading it', async () => {
      for (const path of [`/v1/redec/consent-interactions/${randomUUID()}/grant`, `/v1/consent-interactions/${randomUUID()}/grant`, '/v1/consent-decisions']) {
        const answer = await answerToHeaders(baseUrl, { method: 'POST', path, headers: { 'content-type': 'application/json', ...auth() }, contentLength: 16 * MiB + 1 }, 10_000);
        expect({ path, status: answer.status }).toEqual({ path, status: 413 });
        expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
      }
    });

    it('publishes a configuration whose 50,000-character text arrives escaped, beyond 64 KiB', async () => {
      const text = 'é'.repeat(50_000);
      const escaped = JSON.stringify({ ...redecConfiguration({ templateKey: `redec-${randomUUID()}` }), text }).replace(/é/g, '\\u00e9');
      expect(escaped.length).toBeGreaterThan(300_000);
      const response = await post('/v1/configurations', escaped);
      expect(response.status).toBe(201);
      expect((await api.http.get(`/v1/configurations/${response.body.configurationId}`).set(auth())).body.text).toBe(text);
    });
  });

  describe('JSON shape', () => {
    it('answers a body nested 100,000 levels deep 400 VALIDATION_ERROR, recording nothing', async () => {
      const interactionId = await openInteraction('/v1/redec/consent-interactions', phoneConfigurationId);
      for (const [path, headers] of [
        [`/v1/redec/consent-interactions/${interactionId}/grant`, {}],
        ['/v1/consent-decisions', { 'Idempotency-Key': randomUUID() }],
      ] as const) {
        const body = `{"occurredAt":${Date.now()},"evidence":${nestedArrays(100_000)}}`;
        const response = await recordsNothingAtAll(api, () => post(path, body, headers));
        expectRefusedAs(response, 'too_deeply_nested');
      }
    });

    it('answers a body nested 33 levels deep 400 on any JSON route, and one nested 32 levels deep as any invalid body', async () => {
      const tooDeep = await recordsNothingAtAll(api, () => post('/v1/customers/resolve', { userReference: 'u', identifiers: [nestedObject(31)] }));
      expectRefusedAs(tooDeep, 'too_deeply_nested');
      // The deepest body the parser lets through is walked by class-transformer, class-validator and the request hash without failing.
      const deepest = await recordsNothingAtAll(api, () => post('/v1/customers/resolve', { userReference: 'u', identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(12_345_678), verification: nestedObject(29) }] }));
      expectValidationError(deepest, [{ field: 'identifiers[0].verification.a', reason: 'unknown_property' }]);
    });

    it('answers a body of a million empty objects 400 VALIDATION_ERROR without building them, recording nothing', async () => {
      const interactionId = await openInteraction('/v1/redec/consent-interactions', phoneConfigurationId);
      const body = `{"evidence":[${Array(1_000_000).fill('{}').join(',')}]}`;
      const response = await recordsNothingAtAll(api, () => post(`/v1/redec/consent-interactions/${interactionId}/grant`, body));
      expectRefusedAs(response, 'too_many_values');
      const elements = await post('/v1/customers/resolve', `{"userReference":"u","identifiers":[${Array(10_001).fill('0').join(',')}]}`);
      expectRefusedAs(elements, 'too_many_values');
    });

    it('keeps refusing __proto__ and constructor.prototype keys', async () => {
      for (const poisoned of ['{"__proto__":{"admin":true},"userReference":"u","identifiers":[]}', '{"constructor":{"prototype":{"admin":true}},"userReference":"u","identifiers":[]}']) {
        expectRefusedAs(await recordsNothingAtAll(api, () => post('/v1/customers/resolve', poisoned)), 'malformed_json');
      }
    });
  });

  describe('paths routing refuses', () => {
    it("answers a path that is not UTF-8, or an overlong path segment, as problem+json that does not quote the URL or its query", async () => {
      const secret = `tok_${randomUUID()}`;
      const badUtf8 = await api.http.get(`/v1/redec/consents/%ED%B0%80?token=${secret}`).set(auth());
      expectProblem(badUtf8, 400, 'VALIDATION_ERROR');
      expect(badUtf8.body.reason).toBe('invalid_url');
      const overlong = await api.http.get(`/v1/redec/consents/${'a'.repeat(150)}?token=${secret}`).set(auth());
      expectProblem(overlong, 414, 'URI_TOO_LONG');
      for (const response of [badUtf8, overlong]) {
        expect(response.text).not.toContain(secret);
        expect(response.headers['x-request-id']).toBeDefined();
      }
      expect(JSON.stringify(api.logs)).not.toContain(secret);
    });
  });
});
