import { ReadModel } from '@ledger/projections';
import { customerDocumentId } from '@ledger/ledger';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';

// docs/reference/customers.md, "Resolving a customer", through the real HTTP stack, SQLite store and Redis.
describe('POST /v1/customers/resolve', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let writer: string;
  let asserter: string;
  let reader: string;

  const rut = (value: string) => ({ system: 'cl-sii', type: 'rut', value });
  const resolve = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${apiKey}`).set(headers).send(body as object);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    writer = (await api.tenantKey(['consent:write'])).apiKey;
    reader = (await api.tenantKey(['consent:read'])).apiKey;
    asserter = (await api.tenantKey(['consent:write', 'consent:identity-assert'])).apiKey;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('answers 201 with created: true the first time and 200 with the same customerId on a compatible repeat', async () => {
    const first = await resolve(writer, { userReference: 'cliente-1', identifiers: [rut('12.345.678-5')] });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      customerId: expect.any(String),
      created: true,
      identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }],
    });
    const repeat = await resolve(writer, { userReference: 'cliente-1', identifiers: [rut('123456785')] });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ ...first.body, created: false });
  });

  it('makes the customer visible in the read model before answering', async () => {
    const { tenantId, apiKey } = await api.tenantKey(['consent:write']);
    const created = await resolve(apiKey, { userReference: 'cliente-rm', identifiers: [rut('11.111.111-1')] });
    expect(created.status).toBe(201);
    const readModel = api.app.get(ReadModel);
    expect(await readModel.getDocument('customers', customerDocumentId(tenantId, created.body.customerId))).toMatchObject({
      customerId: created.body.customerId,
      identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }],
    });
  });

  it('fails closed with 409 CUSTOMER_IDENTITY_CONFLICT for another identity under the reference, or the identity under another reference', async () => {
    await resolve(writer, { userReference: 'cliente-2', identifiers: [rut('10.000.004-0')] });
    const otherIdentity = await resolve(writer, { userReference: 'cliente-2', identifiers: [rut('10.000.013-K')] });
    expect(otherIdentity.status).toBe(409);
    expect(otherIdentity.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(otherIdentity.body).toMatchObject({ status: 409, code: 'CUSTOMER_IDENTITY_CONFLICT' });
    const otherReference = await resolve(writer, { userReference: 'cliente-3', identifiers: [rut('10.000.004-0')] });
    expect(otherReference.status).toBe(409);
    expect(otherReference.body.code).toBe('CUSTOMER_IDENTITY_CONFLICT');
  });

  it('scopes everything to the tenant of the key', async () => {
    const mine = await resolve(writer, { userReference: 'shared-ref', identifiers: [rut('7.000.000-8')] });
    const { apiKey: otherTenant } = await api.tenantKey(['consent:write']);
    const theirs = await resolve(otherTenant, { userReference: 'shared-ref', identifiers: [rut('7.000.000-8')] });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.customerId).not.toBe(mine.body.customerId);
  });

  it('requires consent:identity-assert and full provenance for a verification', async () => {
    const verification = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 1_000 };
    const withoutScope = await resolve(writer, { userReference: 'cliente-4', identifiers: [{ ...rut('12.345.678-5'), verification }] });
    expect(withoutScope.status).toBe(403);
    expect(withoutScope.body.code).toBe('INSUFFICIENT_SCOPE');

    const partial = await resolve(asserter, { userReference: 'cliente-4', identifiers: [{ ...rut('12.345.678-5'), verification: { method: 'clave_unica' } }] });
    expect(partial.status).toBe(400);
    expect(partial.body.errors).toEqual([
      { field: 'identifiers[0].verification.sourceReference', reason: 'required' },
      { field: 'identifiers[0].verification.verifiedAt', reason: 'required' },
    ]);

    const asserted = await resolve(asserter, { userReference: 'cliente-4', identifiers: [{ ...rut('12.345.678-5'), verification }] });
    expect(asserted.status).toBe(201);
    expect(asserted.body.identifiers).toEqual([{ system: 'cl-sii', type: 'rut', verificationState: 'asserted' }]);
  });

  it('rejects bad input with one problem per offending field, and records nothing', async () => {
    const before = await api.store.headPosition();
    const cases: Array<[unknown, Array<{ field: string; reason: string }>]> = [
      [{ userReference: 'x', identifiers: [rut('12.345.678-4')] }, [{ field: 'identifiers[0].value', reason: 'invalid_rut' }]],
      [{ identifiers: [] }, [{ field: 'userReference', reason: 'required' }, { field: 'identifiers', reason: expect.any(String) }]],
      [{ userReference: 'x', identifiers: [{ system: 's', type: 't', value: 'v', colour: 'red' }], tenantId: 'other' }, [
        { field: 'tenantId', reason: 'unknown_property' },
        { field: 'identifiers[0].colour', reason: 'unknown_property' },
      ]],
      [{ userReference: 7, identifiers: 'nope' }, [{ field: 'userReference', reason: expect.any(String) }, { field: 'identifiers', reason: expect.any(String) }]],
    ];
    for (const [body, errors] of cases) {
      const response = await resolve(writer, body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect(response.body.errors).toEqual(expect.arrayContaining(errors));
      expect(JSON.stringify(response.body)).not.toContain('12.345.678-4');
    }
    for (const raw of ['{not json', '[]', 'null', '"text"']) {
      const response = await api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${writer}`).set('content-type', 'application/json').send(raw);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_ERROR');
    }
    expect(await api.store.headPosition()).toBe(before);
  });

  it('needs consent:write and a valid key', async () => {
    expect((await resolve(reader, { userReference: 'r', identifiers: [rut('12.345.678-5')] })).body.code).toBe('INSUFFICIENT_SCOPE');
    const anonymous = await api.http.post('/v1/customers/resolve').send({ userReference: 'r', identifiers: [rut('12.345.678-5')] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHENTICATED');
    expect((await resolve('lk_000000000000000000000000_' + 'A'.repeat(43), {})).status).toBe(401);
  });

  it('replays the first answer for a retry with the same Idempotency-Key', async () => {
    const body = { userReference: 'cliente-idem', identifiers: [rut('9.999.999-3')] };
    const first = await resolve(writer, body, { 'Idempotency-Key': 'resolve-idem-1' });
    const retry = await resolve(writer, body, { 'Idempotency-Key': 'resolve-idem-1' });
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.body).toEqual(first.body);
    expect([first.headers['idempotent-replayed'], retry.headers['idempotent-replayed']]).toEqual([undefined, 'true']);
    // Without the key, the same repeat is an ordinary compatible resolution.
    const plain = await resolve(writer, body);
    expect(plain.status).toBe(200);
    const reused = await resolve(writer, { ...body, userReference: 'cliente-idem-2' }, { 'Idempotency-Key': 'resolve-idem-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('never logs or returns an identifier value, hash or ciphertext', async () => {
    const response = await resolve(writer, { userReference: 'ref-secret-991', identifiers: [{ system: 'bank', type: 'email', value: 'ana.perez@example.cl' }] });
    expect(response.status).toBe(201);
    const everything = JSON.stringify(api.logs) + JSON.stringify(response.body);
    expect(everything).not.toContain('ana.perez@example.cl');
    expect(everything).not.toContain('ref-secret-991');
    expect(everything).not.toMatch(/v1\.[A-Za-z0-9_-]{16}\./);
  });
});
