import { randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { recordsNothingAtAll } from './support/expectations';
import { REDEC_TERMS, rutOf } from './support/redec-fixtures';

// The certificate worker appends ArtifactStored on its own schedule; without it, a refused
// request can be checked to record nothing by the store's head position.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };

// docs/reference/grants.md, "Opening an interaction": the rules of opening a
// REDEC consent interaction, through the real HTTP stack, SQLite store and Redis.
// Every refused request is also checked to record nothing.

describe('REDEC consent interactions: POST /v1/redec/consent-interactions', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  /** Same tenant, consent:write without consent:identity-assert. */
  let writerOnly: string;
  /** Same tenant, consent:read only. */
  let readerOnly: string;
  let configurationId: string;
  let noRedecConfigurationId: string;
  /** Another tenant, with its own REDEC configuration and customer. */
  let other: { key: string; configurationId: string; customerId: string };

  let nextRutBody = 15_000_000;
  const freshRut = () => rutOf((nextRutBody += 7919));
  const freshReference = () => `cliente-${randomUUID()}`;
  const verified = () => ({ method: 'clave_unica', sourceReference: `auth-${randomUUID()}`, verifiedAt: Date.now() - 60_000 });
  const verifiedRut = (value = freshRut()) => ({ system: 'cl-sii', type: 'rut', value, verification: verified() });

  const post = (apiKey: string, path: string, body: unknown) => api.http.post(path).set('Authorization', `Bearer ${apiKey}`).send(body as object);
  const openInteraction = (body: unknown, apiKey = key) => post(apiKey, '/v1/redec/consent-interactions', body);
  const resolveCustomer = (body: unknown, apiKey = key) => post(apiKey, '/v1/customers/resolve', body);

  async function publish(apiKey: string, body: Record<string, unknown>): Promise<string> {
    const published = await post(apiKey, '/v1/configurations', {
      templateKey: `redec-${randomUUID()}`,
      title: 'Consulta al Registro de Deuda Consolidada',
      text: 'Autorizo la consulta de mi deuda consolidada.',
      channel: 'digital',
      captureTiming: 'deferred_external',
      redec: REDEC_TERMS,
      ...body,
    });
    expect(published.status).toBe(201);
    return published.body.configurationId;
  }

  /** A second key of the same tenant, usable once it authenticates. */
  async function sameTenantKey(scopes: Scope[]): Promise<string> {
    const { apiKey } = await issueApiKey(api.store, { tenantId, scopes }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    return apiKey;
  }

  /** The userReference was never resolved: resolving it now creates the customer. */
  async function expectNoCustomerFor(userReference: string): Promise<void> {
    const later = await resolveCustomer({ userReference, identifiers: [{ system: 'cl-sii', type: 'rut', value: freshRut() }] });
    expect(later.status).toBe(201);
    expect(later.body.created).toBe(true);
  }

  const recordsNothing = <T>(act: () => Promise<T>) => recordsNothingAtAll(api, act);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    writerOnly = await sameTenantKey(['consent:write']);
    readerOnly = await sameTenantKey(['consent:read']);
    configurationId = await publish(key, {});
    noRedecConfigurationId = await publish(key, { redec: undefined });

    const otherKey = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:identity-assert'])).apiKey;
    const otherConfigurationId = await publish(otherKey, {});
    const otherCustomer = await resolveCustomer({ userReference: 'cliente-otro', identifiers: [verifiedRut()] }, otherKey);
    expect(otherCustomer.status).toBe(201);
    other = { key: otherKey, configurationId: otherConfigurationId, customerId: otherCustomer.body.customerId };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('resolves the customer inline from userReference and a verified RUT, and again to the same customer', async () => {
    const userReference = freshReference();
    const identifiers = [verifiedRut()];
    const first = await openInteraction({ configurationId, userReference, identifiers });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ interactionId: expect.any(String), customerId: expect.any(String), configurationId, customerCreated: true });

    const second = await openInteraction({ configurationId, userReference, identifiers });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ customerId: first.body.customerId, customerCreated: false });
    expect(second.body.interactionId).not.toBe(first.body.interactionId);

    // The inline resolution is the customer resolution: the same subject is found by it.
    const resolved = await resolveCustomer({ userReference, identifiers });
    expect(resolved.status).toBe(200);
    expect(resolved.body.customerId).toBe(first.body.customerId);
  });

  it('opens an interaction by customerId for a customer resolved earlier with a verified RUT', async () => {
    const resolved = await resolveCustomer({ userReference: freshReference(), identifiers: [verifiedRut()] });
    expect(resolved.status).toBe(201);
    const interaction = await openInteraction({ configurationId, customerId: resolved.body.customerId });
    expect(interaction.status).toBe(201);
    expect(interaction.body).toEqual({ interactionId: expect.any(String), customerId: resolved.body.customerId, configurationId, customerCreated: false });

    // The interaction exists: it can be granted.
    const grant = await post(key, `/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`, {
      occurredAt: Date.now() - 60_000,
      sourceSystem: 'web',
      sourceReference: `cap-${randomUUID()}`,
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } },
    });
    expect(grant.status).toBe(201);
    const read = await api.http.get(`/v1/redec/consents/${grant.body.redecConsentId}`).set('Authorization', `Bearer ${key}`);
    expect(read.body.customerId).toBe(resolved.body.customerId);

    // Ids are UUIDs: in capitals they name the same customer and configuration.
    const shouted = await openInteraction({ configurationId: configurationId.toUpperCase(), customerId: resolved.body.customerId.toUpperCase() });
    expect(shouted.status).toBe(201);
    expect(shouted.body).toMatchObject({ customerId: resolved.body.customerId, configurationId });
  });

  it('takes exactly one way to name the customer: both or neither is 400 with field errors and records nothing', async () => {
    const resolved = await resolveCustomer({ userReference: freshReference(), identifiers: [verifiedRut()] });
    expect(resolved.status).toBe(201);

    const userReference = freshReference();
    const both = await recordsNothing(() =>
      openInteraction({ configurationId, customerId: resolved.body.customerId, userReference, identifiers: [verifiedRut()] }),
    );
    expect(both.status).toBe(400);
    expect(both.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(both.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(both.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'userReference', reason: 'not_with_customer_id' },
        { field: 'identifiers', reason: 'not_with_customer_id' },
      ]),
    );
    await expectNoCustomerFor(userReference);

    const customerIdAndReference = await recordsNothing(() => openInteraction({ configurationId, customerId: resolved.body.customerId, userReference: freshReference() }));
    expect(customerIdAndReference.status).toBe(400);
    expect(customerIdAndReference.body.errors).toEqual([{ field: 'userReference', reason: 'not_with_customer_id' }]);

    const neither = await recordsNothing(() => openInteraction({ configurationId }));
    expect(neither.status).toBe(400);
    expect(neither.body.code).toBe('VALIDATION_ERROR');
    expect(neither.body.errors.length).toBeGreaterThan(0);
    expect(neither.body.errors).toEqual(expect.arrayContaining([{ field: 'userReference', reason: 'required' }]));

    const referenceOnly = await recordsNothing(() => openInteraction({ configurationId, userReference: freshReference() }));
    expect(referenceOnly.status).toBe(400);
    expect(referenceOnly.body.errors).toEqual([{ field: 'identifiers', reason: 'required' }]);

    const identifiersOnly = await recordsNothing(() => openInteraction({ configurationId, identifiers: [verifiedRut()] }));
    expect(identifiersOnly.status).toBe(400);
    expect(identifiersOnly.body.errors).toEqual([{ field: 'userReference', reason: 'required' }]);
  });

  it('answers 404 for an unknown configuration or one of another tenant, and records nothing (no customer either)', async () => {
    for (const unknownConfiguration of [randomUUID(), other.configurationId]) {
      const userReference = freshReference();
      const inline = await recordsNothing(() => openInteraction({ configurationId: unknownConfiguration, userReference, identifiers: [verifiedRut()] }));
      expect(inline.status).toBe(404);
      expect(inline.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      await expectNoCustomerFor(userReference);
    }
    const resolved = await resolveCustomer({ userReference: freshReference(), identifiers: [verifiedRut()] });
    const byId = await recordsNothing(() => openInteraction({ configurationId: other.configurationId, customerId: resolved.body.customerId }));
    expect(byId.status).toBe(404);
    expect(byId.body.code).toBe('NOT_FOUND');
  });

  it('answers 409 redec_configuration_required for a published configuration without a redec block, recording nothing', async () => {
    const configuration = await api.http.get(`/v1/configurations/${noRedecConfigurationId}`).set('Authorization', `Bearer ${key}`);
    expect(configuration.status).toBe(200);
    expect(configuration.body.redec ?? null).toBeNull();

    const userReference = freshReference();
    const inline = await recordsNothing(() => openInteraction({ configurationId: noRedecConfigurationId, userReference, identifiers: [verifiedRut()] }));
    expect(inline.status).toBe(409);
    expect(inline.body).toMatchObject({ status: 409, code: 'redec_configuration_required' });
    await expectNoCustomerFor(userReference);

    const resolved = await resolveCustomer({ userReference: freshReference(), identifiers: [verifiedRut()] });
    const byId = await recordsNothing(() => openInteraction({ configurationId: noRedecConfigurationId, customerId: resolved.body.customerId }));
    expect(byId.status).toBe(409);
    expect(byId.body.code).toBe('redec_configuration_required');
  });

  it('refuses identifiers that do not satisfy the baseline profile for the channel: 400 identifiers_do_not_satisfy_profile, no customer created', async () => {
    // No RUT at all.
    const noRutReference = freshReference();
    const noRut = await recordsNothing(() =>
      openInteraction({
        configurationId,
        userReference: noRutReference,
        identifiers: [{ system: 'passport-cl', type: 'passport', value: 'P1234567', verification: verified() }],
      }),
    );
    expect(noRut.status).toBe(400);
    expect(noRut.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', reason: 'identifiers_do_not_satisfy_profile' });
    expect(noRut.body.errors).toEqual([{ field: 'identifiers', reason: 'required_identifier_missing' }]);
    expect(JSON.stringify(noRut.body)).not.toContain('P1234567');
    await expectNoCustomerFor(noRutReference);

    // A RUT without the verification the digital channel requires.
    const unverifiedReference = freshReference();
    const rut = freshRut();
    const unverified = await recordsNothing(() =>
      openInteraction({ configurationId, userReference: unverifiedReference, identifiers: [{ system: 'cl-sii', type: 'rut', value: rut }] }),
    );
    expect(unverified.status).toBe(400);
    expect(unverified.body).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'identifiers_do_not_satisfy_profile' });
    expect(unverified.body.errors).toEqual([{ field: 'identifiers[0].verification', reason: 'verification_required' }]);
    expect(JSON.stringify(unverified.body)).not.toContain(rut.split('-')[0]);
    await expectNoCustomerFor(unverifiedReference);

    // The same rule holds for a stored customer named by customerId.
    const unverifiedCustomer = await resolveCustomer({ userReference: freshReference(), identifiers: [{ system: 'cl-sii', type: 'rut', value: freshRut() }] });
    expect(unverifiedCustomer.status).toBe(201);
    const byId = await recordsNothing(() => openInteraction({ configurationId, customerId: unverifiedCustomer.body.customerId }));
    expect(byId.status).toBe(400);
    expect(byId.body.reason).toBe('identifiers_do_not_satisfy_profile');
    expect(byId.body.errors).toEqual([expect.objectContaining({ reason: 'verification_required' })]);
  });

  it('answers 403 INSUFFICIENT_SCOPE to identifiers[].verification without consent:identity-assert, recording nothing', async () => {
    const userReference = freshReference();
    const refused = await recordsNothing(() => openInteraction({ configurationId, userReference, identifiers: [verifiedRut()] }, writerOnly));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    await expectNoCustomerFor(userReference);

    // The same key opens interactions for customers whose verification was asserted by another key.
    const resolved = await resolveCustomer({ userReference: freshReference(), identifiers: [verifiedRut()] });
    const byId = await openInteraction({ configurationId, customerId: resolved.body.customerId }, writerOnly);
    expect(byId.status).toBe(201);
  });

  it('answers 404 for an unknown customerId or a customer of another tenant, recording nothing', async () => {
    const unknown = await recordsNothing(() => openInteraction({ configurationId, customerId: randomUUID() }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');

    const foreign = await recordsNothing(() => openInteraction({ configurationId, customerId: other.customerId }));
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');

    // The other tenant's customer is real: its own tenant can use it.
    const own = await openInteraction({ configurationId: other.configurationId, customerId: other.customerId }, other.key);
    expect(own.status).toBe(201);
  });

  it('requires consent:write: a read-only key is 403 and records nothing', async () => {
    const refused = await recordsNothing(() => openInteraction({ configurationId, userReference: freshReference(), identifiers: [verifiedRut()] }, readerOnly));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('INSUFFICIENT_SCOPE');
    const unauthenticated = await recordsNothing(() => api.http.post('/v1/redec/consent-interactions').send({ configurationId, customerId: randomUUID() }));
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.code).toBe('UNAUTHENTICATED');
  });
});
