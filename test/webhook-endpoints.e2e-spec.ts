import { randomUUID } from 'node:crypto';
import { issueApiKey, toNewEvent } from '@ledger/ledger';
import { NOTIFICATION_REQUIRED, WebhookDeliveryAttempted, webhookStreams } from '@ledger/webhooks';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';

// docs/reference/webhooks.md, "Managing endpoints", and docs/reference/errors.md:
// managing webhook endpoints through the
// real HTTP stack, SQLite store and Redis. Deliveries themselves are
// webhook-deliveries.e2e-spec.ts's.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
const HOUR_S = 3600;
const DAY_MS = 24 * 3_600_000;
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

describe('webhook endpoints (consent:admin)', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let withoutAdmin: string;
  let writerOnly: string;
  let other: { tenantId: string; key: string };

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const create = (body: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) => {
    const call = api.http.post('/v1/webhook-endpoints').set(auth(options.apiKey));
    return (options.idempotencyKey === undefined ? call : call.set('Idempotency-Key', options.idempotencyKey)).send(body as object);
  };
  const endpoint = (overrides: Record<string, unknown> = {}) => ({ url: `https://bank.example/hooks/${randomUUID()}`, eventTypes: [NOTIFICATION_REQUIRED], ...overrides });
  const created = async (apiKey = key, body: Record<string, unknown> = endpoint()) => {
    const response = await create(body, { apiKey });
    expect(response.status).toBe(201);
    return response.body as { endpointId: string; url: string; eventTypes: string[]; secret: string; status: string; createdAt: number };
  };
  const list = async (apiKey = key) => {
    const response = await api.http.get('/v1/webhook-endpoints').set(auth(apiKey));
    expect(response.status).toBe(200);
    return response;
  };
  const get = (endpointId: string, apiKey = key) => api.http.get(`/v1/webhook-endpoints/${endpointId}`).set(auth(apiKey));
  const remove = (endpointId: string, apiKey = key) => api.http.delete(`/v1/webhook-endpoints/${endpointId}`).set(auth(apiKey));
  /** Sends a fresh Idempotency-Key unless one is given; `null` sends none. */
  const rotate = (endpointId: string, body: unknown = {}, options: { apiKey?: string; idempotencyKey?: string | null } = {}) => {
    const call = api.http.post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`).set(auth(options.apiKey));
    const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
    return (idempotencyKey === null ? call : call.set('Idempotency-Key', idempotencyKey)).send(body as object);
  };
  const deliveries = (endpointId: string, query: Record<string, string | number> = {}, apiKey = key) =>
    api.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries`).query(query).set(auth(apiKey));
  /** Every encrypted secret the tenant's endpoint stream holds. */
  const ciphertexts = async (tenant = tenantId) =>
    (await api.store.readStream(webhookStreams.endpoints(tenant))).map((e) => (e.data as { encryptedSecret?: string }).encryptedSecret).filter((c): c is string => c !== undefined);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin']));
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    withoutAdmin = (await issueApiKey(api.store, { tenantId, scopes: ['consent:read', 'consent:write', 'consent:runtime', 'consent:audit'] }, operator)).apiKey;
    writerOnly = (await issueApiKey(api.store, { tenantId, scopes: ['consent:write', 'consent:runtime'] }, operator)).apiKey;
    const otherTenant = await api.tenantKey(['consent:admin']);
    other = { tenantId: otherTenant.tenantId, key: otherTenant.apiKey };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('registers an endpoint and shows its whsec_ secret (32 random bytes) only in that answer', async () => {
    const body = endpoint();
    const before = Date.now();
    const response = await create(body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: body.url,
      eventTypes: [NOTIFICATION_REQUIRED],
      secret: expect.stringMatching(SECRET),
      status: 'active',
      createdAt: expect.any(Number),
    });
    expect(response.body.createdAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(response.body.createdAt).toBeLessThanOrEqual(Date.now() + 1_000);
    const key32 = Buffer.from(response.body.secret.slice('whsec_'.length), 'base64');
    expect(key32).toHaveLength(32);
    expect(key32.toString('base64')).toBe(response.body.secret.slice('whsec_'.length));

    // Stored encrypted, never in clear.
    const stored = await ciphertexts();
    expect(stored.length).toBeGreaterThan(0);
    const texts = JSON.stringify(await api.store.readStream(webhookStreams.endpoints(tenantId)));
    expect(texts).not.toContain(response.body.secret);

    const one = await get(response.body.endpointId);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      endpointId: response.body.endpointId,
      url: body.url,
      eventTypes: [NOTIFICATION_REQUIRED],
      status: 'active',
      createdAt: response.body.createdAt,
      disabledAt: null,
      disabledReason: null,
      secretRotatedAt: null,
    });
    const all = await list();
    expect(all.body.endpoints).toEqual(expect.arrayContaining([one.body]));
    for (const read of [one, all]) {
      expect(read.text).not.toContain(response.body.secret);
      expect(read.text).not.toContain('whsec_');
      expect(read.text).not.toMatch(/secret"/i);
      for (const ciphertext of stored) expect(read.text).not.toContain(ciphertext);
    }
  });

  it('deduplicates event types, and an Idempotency-Key replays the first answer, secret included, recording one endpoint', async () => {
    const deduplicated = await created(key, endpoint({ eventTypes: [NOTIFICATION_REQUIRED, NOTIFICATION_REQUIRED] }));
    expect(deduplicated.eventTypes).toEqual([NOTIFICATION_REQUIRED]);

    const idempotencyKey = randomUUID();
    const body = endpoint();
    const first = await create(body, { idempotencyKey });
    expect(first.status).toBe(201);
    const retry = await recordsNoFact(api, () => create(body, { idempotencyKey }));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect((await list()).body.endpoints.filter((e: { url: string }) => e.url === body.url)).toHaveLength(1);
    expectProblem(await create(endpoint(), { idempotencyKey }), 422, 'IDEMPOTENCY_KEY_REUSED');
    // The replayable copy of the answer is encrypted like the secret's own fact: the secret is nowhere in clear in the store.
    expect(JSON.stringify(await api.store.readAll())).not.toContain(first.body.secret.slice('whsec_'.length));
  });

  it('needs consent:admin to change endpoints, and consent:admin or consent:read to read them; an API key always', async () => {
    const { endpointId } = await created();
    const refusals = [
      () => create(endpoint(), { apiKey: withoutAdmin }),
      () => remove(endpointId, withoutAdmin),
      () => rotate(endpointId, {}, { apiKey: withoutAdmin }),
      () => api.http.get('/v1/webhook-endpoints').set(auth(writerOnly)),
      () => get(endpointId, writerOnly),
      () => deliveries(endpointId, {}, writerOnly),
    ];
    for (const refused of refusals) expectProblem(await recordsNothingAtAll(api, refused), 403, 'INSUFFICIENT_SCOPE');
    // consent:read reads the endpoints, as it reads the other GETs under /v1 (docs/reference/authentication.md, "Scopes").
    expect((await api.http.get('/v1/webhook-endpoints').set(auth(withoutAdmin))).status).toBe(200);
    expect((await get(endpointId, withoutAdmin)).status).toBe(200);
    expect((await deliveries(endpointId, {}, withoutAdmin)).status).toBe(200);
    expectProblem(await api.http.get('/v1/webhook-endpoints'), 401, 'UNAUTHENTICATED');
    expectProblem(await api.http.post('/v1/webhook-endpoints').set(auth('not-a-key')).send(endpoint()), 401, 'UNAUTHENTICATED');
    expect((await get(endpointId)).body.status).toBe('active');
  });

  it('refuses a bad URL, an unknown or empty event type list and an unknown field with 400, recording nothing', async () => {
    const refusals: Array<[Record<string, unknown>, string, string]> = [
      [{ url: 'not a url' }, 'url', 'invalid_url'],
      [{ url: 'bank.example/hooks' }, 'url', 'invalid_url'],
      [{ url: 'ftp://bank.example/hooks' }, 'url', 'https_required'],
      // Even with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (the tests'), plain http is allowed only to loopback.
      [{ url: 'http://example.com/hooks' }, 'url', 'https_required'],
      [{ url: 'http://10.0.0.1/hooks' }, 'url', 'https_required'],
      [{ url: 'https://user:pass@bank.example/hooks' }, 'url', 'invalid_url'],
    ];
    for (const [overrides, field, reason] of refusals) {
      const response = await recordsNothingAtAll(api, () => create(endpoint(overrides)));
      expectValidationError(response, [{ field, reason }], reason);
      expect(response.text).not.toContain('user:pass');
    }
    for (const [body, field, reason] of [
      [endpoint({ eventTypes: ['redec.consent.granted'] }), 'eventTypes', 'invalid_value'],
      [endpoint({ eventTypes: [] }), 'eventTypes', 'too_few_items'],
      [endpoint({ eventTypes: NOTIFICATION_REQUIRED }), 'eventTypes', 'must_be_array'],
      [{ eventTypes: [NOTIFICATION_REQUIRED] }, 'url', 'required'],
      [endpoint({ url: 42 }), 'url', 'must_be_string'],
      [endpoint({ secret: 'whsec_mine' }), 'secret', 'unknown_property'],
      [endpoint({ status: 'disabled' }), 'status', 'unknown_property'],
    ] as Array<[Record<string, unknown>, string, string]>) {
      expectValidationError(await recordsNothingAtAll(api, () => create(body)), [{ field, reason }]);
    }
    expectProblem(await recordsNothingAtAll(api, () => create(null)), 400, 'VALIDATION_ERROR');
  });

  it('subscribes an endpoint that names no event type to redec.notification.required only, and to report.created when it names it', async () => {
    expect((await created(key, { url: `https://bank.example/hooks/${randomUUID()}` })).eventTypes).toEqual([NOTIFICATION_REQUIRED]);
    expect((await created(key, endpoint({ eventTypes: ['report.created', NOTIFICATION_REQUIRED] }))).eventTypes).toEqual(['report.created', NOTIFICATION_REQUIRED]);
  });

  it('accepts plain http to loopback with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://[::1]:9/x']) {
      const response = await create(endpoint({ url }));
      expect(response.status).toBe(201);
      expect(response.body.url).toBe(url);
    }
  });

  it("keeps tenants apart: another tenant's endpoint is 404 everywhere and never listed; an id that is not a UUID is 404", async () => {
    const theirs = await created(other.key);
    for (const id of [theirs.endpointId, randomUUID()]) {
      expectProblem(await get(id), 404, 'NOT_FOUND');
      expectProblem(await recordsNoFact(api, () => remove(id)), 404, 'NOT_FOUND');
      expectProblem(await recordsNoFact(api, () => rotate(id)), 404, 'NOT_FOUND');
      expectProblem(await deliveries(id), 404, 'NOT_FOUND');
    }
    expect((await list()).body.endpoints.map((e: { endpointId: string }) => e.endpointId)).not.toContain(theirs.endpointId);
    expect((await get(theirs.endpointId, other.key)).body.status).toBe('active');
    expectProblem(await get('not-a-uuid'), 404, 'NOT_FOUND');
    expectProblem(await remove('not-a-uuid'), 404, 'NOT_FOUND');
  });

  it('deletes idempotently: 204 twice, the second recording nothing; the endpoint stays listed as disabled', async () => {
    const { endpointId } = await created();
    const before = Date.now();
    const first = await remove(endpointId);
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const second = await recordsNothingAtAll(api, () => remove(endpointId));
    expect(second.status).toBe(204);
    const listed = (await list()).body.endpoints.find((e: { endpointId: string }) => e.endpointId === endpointId);
    expect(listed).toMatchObject({ endpointId, status: 'disabled', disabledReason: 'deleted', disabledAt: expect.any(Number) });
    expect(listed.disabledAt).toBeGreaterThanOrEqual(before - 1_000);
    expect((await get(endpointId)).body).toEqual(listed);
    const disabledFacts = (await api.store.readStream(webhookStreams.endpoints(tenantId))).filter(
      (e) => e.type === 'WebhookEndpointDisabled' && (e.data as { endpointId: string }).endpointId === endpointId,
    );
    expect(disabledFacts).toHaveLength(1);
  });

  it('rotates the secret: a new one, the previous ones valid for the overlap (default a day); a disabled endpoint is 409', async () => {
    const registered = await created();
    const before = Date.now();
    const rotated = await rotate(registered.endpointId, { overlapSeconds: HOUR_S });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ endpointId: registered.endpointId, secret: expect.stringMatching(SECRET), previousSecretsValidUntil: expect.any(Number) });
    expect(rotated.body.secret).not.toBe(registered.secret);
    expect(Buffer.from(rotated.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(rotated.body.previousSecretsValidUntil).toBeGreaterThanOrEqual(before + HOUR_S * 1000 - 1_000);
    expect(rotated.body.previousSecretsValidUntil).toBeLessThanOrEqual(Date.now() + HOUR_S * 1000 + 1_000);

    const read = await get(registered.endpointId);
    expect(read.body.secretRotatedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(read.text).not.toContain(rotated.body.secret);
    expect(read.text).not.toContain(registered.secret);

    const byDefault = await rotate(registered.endpointId);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.previousSecretsValidUntil).toBeGreaterThanOrEqual(before + DAY_MS - 1_000);
    expect(byDefault.body.previousSecretsValidUntil).toBeLessThanOrEqual(Date.now() + DAY_MS + 1_000);
    expect(new Set([registered.secret, rotated.body.secret, byDefault.body.secret]).size).toBe(3);

    const withoutBody = await api.http.post(`/v1/webhook-endpoints/${registered.endpointId}/rotate-secret`).set(auth()).set('Idempotency-Key', randomUUID());
    expect(withoutBody.status).toBe(200);
    expect(withoutBody.body.previousSecretsValidUntil).toBeGreaterThanOrEqual(before + DAY_MS - 1_000);

    const noOverlap = await rotate(registered.endpointId, { overlapSeconds: 0 });
    expect(noOverlap.status).toBe(200);
    expect(noOverlap.body.previousSecretsValidUntil).toBeLessThanOrEqual(Date.now() + 1_000);

    await remove(registered.endpointId);
    expectProblem(await recordsNoFact(api, () => rotate(registered.endpointId)), 409, 'webhook_endpoint_disabled');
  });

  it('needs an Idempotency-Key to rotate: a retry answers the first rotation; overlapSeconds is an integer 0..604800', async () => {
    const { endpointId } = await created();
    expectProblem(await recordsNothingAtAll(api, () => rotate(endpointId, {}, { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const idempotencyKey = randomUUID();
    const first = await rotate(endpointId, { overlapSeconds: 60 }, { idempotencyKey });
    expect(first.status).toBe(200);
    const retry = await recordsNoFact(api, () => rotate(endpointId, { overlapSeconds: 60 }, { idempotencyKey }));
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(JSON.stringify(await api.store.readAll())).not.toContain(first.body.secret.slice('whsec_'.length));
    expect((await api.store.readStream(webhookStreams.endpoints(tenantId))).filter((e) => e.type === 'WebhookSecretRotated' && (e.data as { endpointId: string }).endpointId === endpointId)).toHaveLength(1);
    for (const [body, reason] of [
      [{ overlapSeconds: 604_801 }, 'too_large'],
      [{ overlapSeconds: -1 }, 'too_small'],
      [{ overlapSeconds: 1.5 }, 'must_be_integer'],
      [{ overlapSeconds: '60' }, 'must_be_integer'],
    ] as Array<[Record<string, unknown>, string]>) {
      expectValidationError(await recordsNoFact(api, () => rotate(endpointId, body)), [{ field: 'overlapSeconds', reason }]);
    }
    expectValidationError(await recordsNoFact(api, () => rotate(endpointId, { overlap: 60 })), [{ field: 'overlap', reason: 'unknown_property' }]);
    expect((await rotate(endpointId, { overlapSeconds: 604_800 })).status).toBe(200);
  });

  it('lists no deliveries for a fresh endpoint, and pages through attempts newest first', async () => {
    const { endpointId } = await created();
    const fresh = await deliveries(endpointId);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ items: [], nextCursor: null, deliveries: [], next: null });

    // Attempts as the delivery worker records them (its own suite drives a real receiver).
    const attempts: Array<WebhookDeliveryAttempted['data']> = [1, 2, 3, 4, 5].map((attempt) => ({
      endpointId,
      messageId: `evt_${randomUUID()}`,
      eventType: NOTIFICATION_REQUIRED,
      eventPosition: 1,
      attempt,
      attemptedAt: 1_800_000_000_000 + attempt,
      outcome: attempt === 5 ? 'delivered' : 'failed',
      status: attempt === 5 ? 200 : 503,
      latencyMs: 10 * attempt,
      error: attempt === 5 ? null : 'status 503',
      sinceRecordedMs: attempt,
    }));
    await api.store.append(
      webhookStreams.deliveries(tenantId, endpointId),
      attempts.map((data) => toNewEvent({ type: 'WebhookDeliveryAttempted', data }, { tenantId, actor: 'worker:webhooks', correlationId: 'test', now: Date.now() })),
      'no_stream',
    );
    const shown = (data: WebhookDeliveryAttempted['data']) => {
      const { messageId, eventType, attempt, attemptedAt, outcome, status, latencyMs, error } = data;
      return { messageId, eventType, attempt, attemptedAt, outcome, status, latencyMs, error };
    };
    const newestFirst = [...attempts].reverse().map(shown);

    expect((await deliveries(endpointId)).body).toEqual({ items: newestFirst, nextCursor: null, deliveries: newestFirst, next: null });
    const seen: unknown[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await deliveries(endpointId, cursor ? { limit: 2, cursor } : { limit: 2 });
      expect(page.status).toBe(200);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);
    // The deprecated names of /v1's first version of this list page the same way.
    const seenBefore: unknown[] = [];
    let before: string | null | undefined;
    do {
      const page = await deliveries(endpointId, before ? { limit: 2, before } : { limit: 2 });
      seenBefore.push(...page.body.deliveries);
      before = page.body.next;
    } while (before);
    expect(seenBefore).toEqual(newestFirst);
    expect((await deliveries(endpointId, { limit: 5 })).body.nextCursor).toBeNull();

    for (const [query, field, reason] of [
      [{ limit: 0 }, 'limit', 'too_small'],
      [{ limit: 201 }, 'limit', 'too_large'],
      [{ limit: 'ten' }, 'limit', 'must_be_integer'],
      [{ limit: '1.5' }, 'limit', 'must_be_integer'],
      [{ cursor: 'not-a-cursor' }, 'cursor', 'invalid_cursor'],
      [{ cursor: 'a b' }, 'cursor', 'invalid_format'],
      [{ before: 'not-a-cursor' }, 'before', 'invalid_cursor'],
      [{ cursor: 'cjE', before: 'cjE' }, 'before', 'not_with_cursor'],
      [{ after: 'x' }, 'after', 'unknown_property'],
    ] as Array<[Record<string, string | number>, string, string]>) {
      expectValidationError(await deliveries(endpointId, query), [{ field, reason }]);
    }
    expect((await deliveries(endpointId, { limit: 200 })).status).toBe(200);
  });

  it('allows 20 active endpoints per tenant: the 21st is 409 until one is deleted', async () => {
    const tenant = await api.tenantKey(['consent:admin']);
    const endpoints = [];
    for (let i = 0; i < 20; i += 1) endpoints.push(await created(tenant.apiKey));
    expectProblem(await recordsNoFact(api, () => create(endpoint(), { apiKey: tenant.apiKey })), 409, 'webhook_endpoint_limit_reached');
    expect((await remove(endpoints[7].endpointId, tenant.apiKey)).status).toBe(204);
    expect((await create(endpoint(), { apiKey: tenant.apiKey })).status).toBe(201);
    expectProblem(await create(endpoint(), { apiKey: tenant.apiKey }), 409, 'webhook_endpoint_limit_reached');
    expect((await list(tenant.apiKey)).body.endpoints).toHaveLength(21);
  });

  it('is described in OpenAPI under the webhooks tag, with every field of its answers', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema };
    const document = (await api.http.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { tags: string[]; description: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
      components: { schemas: Record<string, Schema> };
    };
    const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema);
    const fields = (method: string, path: string, status: string) => Object.keys(resolve(document.paths[path][method].responses[status].content!['application/json'].schema).properties ?? {}).sort();
    const operations = [
      ['post', '/v1/webhook-endpoints'],
      ['get', '/v1/webhook-endpoints'],
      ['get', '/v1/webhook-endpoints/{endpointId}'],
      ['delete', '/v1/webhook-endpoints/{endpointId}'],
      ['post', '/v1/webhook-endpoints/{endpointId}/rotate-secret'],
      ['get', '/v1/webhook-endpoints/{endpointId}/deliveries'],
    ];
    for (const [method, path] of operations) expect(document.paths[path]?.[method]?.tags).toEqual(['webhooks']);
    expect(fields('post', '/v1/webhook-endpoints', '201')).toEqual(['createdAt', 'endpointId', 'eventTypes', 'secret', 'status', 'url']);
    expect(fields('get', '/v1/webhook-endpoints/{endpointId}', '200')).toEqual(['createdAt', 'disabledAt', 'disabledReason', 'endpointId', 'eventTypes', 'secretRotatedAt', 'status', 'url']);
    expect(fields('post', '/v1/webhook-endpoints/{endpointId}/rotate-secret', '200')).toEqual(['endpointId', 'previousSecretsValidUntil', 'secret']);
    expect(fields('get', '/v1/webhook-endpoints/{endpointId}/deliveries', '200')).toEqual(['deliveries', 'items', 'next', 'nextCursor']);
    expect(document.paths['/v1/webhook-endpoints'].post.description).toEqual(expect.stringContaining('webhook-signature'));
    expect(document.paths['/v1/webhook-endpoints'].post.description).toEqual(expect.stringContaining('https'));
  });
});
