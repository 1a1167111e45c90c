import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { rutOf } from './support/redec-fixtures';

// Legal holds (docs/reference/customers.md, "Legal holds"; decision 0036) through the real HTTP stack, SQLite store and Redis.
describe('POST /v1/customers/{customerId}/legal-holds', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  /** consent:admin for holds, consent:write to resolve customers, consent:read to list holds. */
  let admin: string;

  const post = (apiKey: string, path: string, body: object = {}, key: string | null = randomUUID()) => {
    const call = api.http.post(path).set('Authorization', `Bearer ${apiKey}`);
    return (key === null ? call : call.set('Idempotency-Key', key)).send(body);
  };
  let rutBody = 14_000_000;
  const newCustomer = async () => {
    const identifiers = [{ system: 'cl-sii', type: 'rut', value: rutOf((rutBody += 7919)) }];
    const resolved = await post(admin, '/v1/customers/resolve', { userReference: `cliente-${randomUUID()}`, identifiers }, null);
    expect(resolved.status).toBe(201);
    return resolved.body.customerId as string;
  };

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    admin = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read'])).apiKey;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('places a hold, lists it, and releases it once', async () => {
    const customerId = await newCustomer();
    const placed = await post(admin, `/v1/customers/${customerId}/legal-holds`, { reason: 'litigation', reference: 'causa C-118-2026' });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({ legalHoldId: expect.any(String), customerId, reason: 'litigation', reference: 'causa C-118-2026', placedAt: expect.any(Number), releasedAt: null });
    const { legalHoldId } = placed.body;

    const listed = await api.http.get(`/v1/customers/${customerId}/legal-holds`).set('Authorization', `Bearer ${admin}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [placed.body] });

    const released = await post(admin, `/v1/customers/${customerId}/legal-holds/${legalHoldId}/release`);
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ ...placed.body, releasedAt: expect.any(Number) });
    const again = await post(admin, `/v1/customers/${customerId}/legal-holds/${legalHoldId}/release`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'legal_hold_already_released' });
  });

  it('needs consent:admin and an Idempotency-Key, and refuses a hold without reason or reference, changing nothing', async () => {
    const customerId = await newCustomer();
    const { apiKey: writeOnly } = await api.tenantKey(['consent:write']);
    expect((await post(writeOnly, `/v1/customers/${customerId}/legal-holds`, { reason: 'r', reference: 'x' })).body).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect((await post(admin, `/v1/customers/${customerId}/legal-holds`, { reason: 'r', reference: 'x' }, null)).body).toMatchObject({ status: 400, code: 'IDEMPOTENCY_KEY_REQUIRED' });
    const invalid = await post(admin, `/v1/customers/${customerId}/legal-holds`, { reason: '', surprise: true });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['reason', 'reference', 'surprise']);
    const listed = await api.http.get(`/v1/customers/${customerId}/legal-holds`).set('Authorization', `Bearer ${admin}`);
    expect(listed.body).toEqual({ items: [] });
  });

  it("answers 404 for an unknown customer, another tenant's customer, or an unknown hold", async () => {
    const customerId = await newCustomer();
    const { apiKey: otherTenant } = await api.tenantKey(['consent:admin']);
    expect((await post(otherTenant, `/v1/customers/${customerId}/legal-holds`, { reason: 'r', reference: 'x' })).status).toBe(404);
    expect((await post(admin, `/v1/customers/${randomUUID()}/legal-holds`, { reason: 'r', reference: 'x' })).status).toBe(404);
    expect((await post(admin, `/v1/customers/${customerId}/legal-holds/${randomUUID()}/release`)).body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
