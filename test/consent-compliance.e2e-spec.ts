import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNothingAtAll } from './support/expectations';
import { REDEC_TERMS, rutOf } from './support/redec-fixtures';

// General consents and consent compliance (docs/reference/consent-compliance.md)
// through the real HTTP stack, SQLite and Redis.
// Later instants are reached as an operator would test them: the service is
// restarted on the same store with LEDGER_CLOCK_OFFSET_MS.

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('general consents and consent compliance', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let otherKey: string;

  let nextRutBody = 23_000_000;
  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const post = (path: string, body: unknown, headers: Record<string, string> = auth()) => api.http.post(path).set(headers).send(body as object);
  const get = (path: string, apiKey = key) => api.http.get(path).set(auth(apiKey));
  const compliance = (customerId: string, templateKey: string, apiKey = key) =>
    get(`/v1/customers/${customerId}/consent-compliance?templateKey=${encodeURIComponent(templateKey)}`, apiKey);

  async function publish(templateKey: string, body: Record<string, unknown> = {}): Promise<{ configurationId: string; publishedAt: number; version: number }> {
    const published = await post('/v1/configurations', {
      templateKey,
      title: 'Consentimiento',
      text: 'Autorizo.',
      channel: 'digital',
      captureTiming: 'deferred_external',
      ...body,
    });
    expect(published.status).toBe(201);
    return published.body;
  }
  const publishRedec = (templateKey: string, body: Record<string, unknown> = {}) =>
    publish(templateKey, { redec: { ...REDEC_TERMS, scopes: [...REDEC_TERMS.scopes, { scopeId: 'redec-guarantees', dataCategoryCode: 'redec.guarantees' }] }, ...body });

  async function customer(): Promise<string> {
    const verification = { method: 'clave_unica', sourceReference: `auth-${randomUUID()}`, verifiedAt: Date.now() - MINUTE };
    const resolved = await post('/v1/customers/resolve', { userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)), verification }] });
    expect(resolved.status).toBe(201);
    return resolved.body.customerId;
  }

  async function grantRedec(configurationId: string, customerId: string, narrowing: Record<string, unknown> = {}): Promise<string> {
    const opened = await post('/v1/redec/consent-interactions', { configurationId, customerId });
    expect(opened.status).toBe(201);
    const granted = await post(`/v1/redec/consent-interactions/${opened.body.interactionId}/grant`, {
      occurredAt: Date.now() - MINUTE,
      sourceSystem: 'crm',
      sourceReference: `cap-${randomUUID()}`,
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
      ...narrowing,
    });
    expect(granted.status).toBe(201);
    return granted.body.redecConsentId;
  }

  async function grantGeneral(configurationId: string, customerId: string): Promise<{ consentId: string; grantedAt: number }> {
    const opened = await post('/v1/consent-interactions', { configurationId, customerId });
    expect(opened.status).toBe(201);
    const granted = await post(`/v1/consent-interactions/${opened.body.interactionId}/grant`, {
      occurredAt: Date.now() - 2 * MINUTE,
      sourceSystem: 'web',
      sourceReference: `tos-${randomUUID()}`,
      evidence: { kind: 'electronic', authentication: { method: 'password', reference: 'session-9' } },
    });
    expect(granted.status).toBe(201);
    return granted.body;
  }

  const revokeRedec = (redecConsentId: string) =>
    api.http
      .post(`/v1/redec/consents/${redecConsentId}/revoke`)
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({ channel: 'digital', occurredAt: Date.now() - 1000, sourceType: 'direct', identityAssurance: 'client_authenticated' });

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    ({ apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    ({ apiKey: otherKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('general consents', () => {
    it('are captured through an interaction and a grant, read back, listed with template, version, state and dates, and revoked once', async () => {
      const templateKey = `tos-${randomUUID()}`;
      const { configurationId } = await publish(templateKey);
      const customerId = await customer();
      const before = Date.now();
      const { consentId, grantedAt } = await grantGeneral(configurationId, customerId);
      const read = await get(`/v1/consents/${consentId}`);
      expect(read.body).toEqual({
        kind: 'general',
        consentId,
        customerId,
        templateKey,
        configurationVersion: 1,
        configurationId,
        status: 'granted',
        channel: 'digital',
        captureTiming: 'deferred_external',
        grantedAt,
        recordedAt: expect.any(Number),
        consentActionId: expect.any(String),
        revocation: null,
      });
      expect(read.body.recordedAt).toBeGreaterThanOrEqual(before);
      expect(grantedAt).toBeLessThan(read.body.recordedAt);

      const idempotencyKey = randomUUID();
      const revocation = { occurredAt: Date.now() - 1000, channel: 'digital', sourceSystem: 'web', sourceReference: 'withdraw-1' };
      const revoke = () => post(`/v1/consents/${consentId}/revoke`, revocation, { ...auth(), 'Idempotency-Key': idempotencyKey });
      const revoked = await revoke();
      expect(revoked.status).toBe(201);
      expect((await revoke()).body).toEqual(revoked.body);
      const again = await post(`/v1/consents/${consentId}/revoke`, { occurredAt: Date.now() - 1000, channel: 'digital', sourceSystem: 'web', sourceReference: 'withdraw-2' }, { ...auth(), 'Idempotency-Key': randomUUID() });
      expectProblem(again, 409, 'consent_already_revoked');

      const listed = await get(`/v1/customers/${customerId}/consents`);
      expect(listed.body.consents).toEqual([
        expect.objectContaining({ kind: 'general', consentId, templateKey, configurationVersion: 1, status: 'revoked', grantedAt, revocation: expect.objectContaining({ revokedAt: revoked.body.revokedAt }) }),
      ]);
    });

    it('refuse a REDEC configuration, a grant from the future, a second different grant, and another tenant', async () => {
      const redec = await publishRedec(`redec-${randomUUID()}`);
      const customerId = await customer();
      expectProblem(await recordsNothingAtAll(api, () => post('/v1/consent-interactions', { configurationId: redec.configurationId, customerId })), 409, 'general_configuration_required');
      const general = await publish(`tos-${randomUUID()}`);
      expectProblem(await recordsNothingAtAll(api, () => post('/v1/redec/consent-interactions', { configurationId: general.configurationId, customerId })), 409, 'redec_configuration_required');
      const opened = await post('/v1/consent-interactions', { configurationId: general.configurationId, customerId });
      const grant = (body: Record<string, unknown>) =>
        post(`/v1/consent-interactions/${opened.body.interactionId}/grant`, { occurredAt: Date.now() - MINUTE, sourceSystem: 'web', sourceReference: 'a', evidence: { kind: 'electronic', authentication: { method: 'password', reference: 'r' } }, ...body });
      expectValidationError(await recordsNothingAtAll(api, () => grant({ occurredAt: Date.now() + 10 * MINUTE })), [{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }]);
      expectValidationError(await recordsNothingAtAll(api, () => grant({ sourceReference: undefined })), [{ field: 'sourceReference', reason: 'required' }]);
      expect((await grant({ occurredAt: 1_763_800_000_000 })).status).toBe(201);
      expect((await grant({ occurredAt: 1_763_800_000_000 })).status).toBe(201);
      expectProblem(await grant({ sourceReference: 'b' }), 409, 'consent_interaction_already_granted');
      expectProblem(await get(`/v1/customers/${customerId}/consents`, otherKey), 404, 'NOT_FOUND');
      const { consentId } = (await get(`/v1/customers/${customerId}/consents`)).body.consents[0];
      expectProblem(await get(`/v1/consents/${consentId}`, otherKey), 404, 'NOT_FOUND');
    });
  });

  describe('compliance', () => {
    it('needs an active consent of the evaluated version of this very template', async () => {
      const templateKey = `redec-${randomUUID()}`;
      const { configurationId } = await publishRedec(templateKey);
      const customerId = await customer();
      expect((await compliance(customerId, templateKey)).body).toEqual({
        templateKey,
        status: 'non_compliant',
        acceptedVersion: null,
        evaluatedVersion: 1,
        pendingRequirements: [{ code: 'acceptance_required', version: 1 }],
        pendingVersionChanges: [],
      });
      await grantRedec(configurationId, customerId);
      expect((await compliance(customerId, templateKey)).body).toEqual({
        templateKey,
        status: 'complies',
        acceptedVersion: 1,
        evaluatedVersion: 1,
        pendingRequirements: [],
        pendingVersionChanges: [],
      });
    });

    it('is partial when the REDEC grant narrowed the scopes or objectives of the version', async () => {
      const templateKey = `redec-${randomUUID()}`;
      const { configurationId } = await publishRedec(templateKey);
      const customerId = await customer();
      await grantRedec(configurationId, customerId, { scopeIds: ['redec-debt'], objectiveCodes: ['02'] });
      expect((await compliance(customerId, templateKey)).body).toMatchObject({
        status: 'partially_compliant',
        acceptedVersion: 1,
        pendingRequirements: [
          { code: 'scope_not_accepted', scopeId: 'redec-guarantees' },
          { code: 'objective_not_accepted', objectiveCode: '03' },
        ],
      });
    });

    it('does not count a consent of another template sharing the same permissions', async () => {
      const templateKey = `redec-${randomUUID()}`;
      await publishRedec(templateKey);
      const sibling = await publishRedec(`redec-${randomUUID()}`);
      const customerId = await customer();
      await grantRedec(sibling.configurationId, customerId);
      expect((await compliance(customerId, templateKey)).body).toMatchObject({ status: 'non_compliant', acceptedVersion: null });
    });

    it('is not satisfied by a revoked REDEC or general consent', async () => {
      const redecKey = `redec-${randomUUID()}`;
      const redec = await publishRedec(redecKey);
      const customerId = await customer();
      const redecConsentId = await grantRedec(redec.configurationId, customerId);
      expect((await revokeRedec(redecConsentId)).body).toMatchObject({ effective: true });
      expect((await compliance(customerId, redecKey)).body).toMatchObject({ status: 'non_compliant', acceptedVersion: null });

      const generalKey = `tos-${randomUUID()}`;
      const general = await publish(generalKey);
      const { consentId } = await grantGeneral(general.configurationId, customerId);
      expect((await compliance(customerId, generalKey)).body).toMatchObject({ status: 'complies', acceptedVersion: 1 });
      await post(`/v1/consents/${consentId}/revoke`, { occurredAt: Date.now() - 1000, channel: 'digital', sourceSystem: 'web', sourceReference: 'w' }, { ...auth(), 'Idempotency-Key': randomUUID() });
      expect((await compliance(customerId, generalKey)).body).toMatchObject({ status: 'non_compliant', acceptedVersion: null });
    });

    it('keeps a holder of the earlier version compliant while a new version is in its grace period, and reports it pending', async () => {
      const templateKey = `tos-${randomUUID()}`;
      const v1 = await publish(templateKey);
      const customerId = await customer();
      await grantGeneral(v1.configurationId, customerId);
      const v2 = await publish(templateKey, { gracePeriodDays: 30, text: 'Autorizo, versión 2.' });
      expect(v2).toMatchObject({ version: 2, gracePeriodDays: 30 });
      expect((await compliance(customerId, templateKey)).body).toEqual({
        templateKey,
        status: 'complies',
        acceptedVersion: 1,
        evaluatedVersion: 1,
        pendingRequirements: [],
        pendingVersionChanges: [{ version: 2, configurationId: v2.configurationId, publishedAt: v2.publishedAt, effectiveAt: v2.publishedAt + 30 * DAY }],
      });
      await grantGeneral(v2.configurationId, customerId);
      expect((await compliance(customerId, templateKey)).body).toMatchObject({ status: 'complies', acceptedVersion: 2, pendingVersionChanges: [] });
    });

    it('answers a version published without grace as in force at once', async () => {
      const templateKey = `tos-${randomUUID()}`;
      const v1 = await publish(templateKey);
      const customerId = await customer();
      await grantGeneral(v1.configurationId, customerId);
      await publish(templateKey);
      expect((await compliance(customerId, templateKey)).body).toMatchObject({
        status: 'non_compliant',
        acceptedVersion: 1,
        evaluatedVersion: 2,
        pendingRequirements: [{ code: 'acceptance_required', version: 2 }],
      });
    });

    it('refuses a missing templateKey, an unknown template or customer, and another tenant, recording nothing', async () => {
      const templateKey = `tos-${randomUUID()}`;
      await publish(templateKey);
      const customerId = await customer();
      expectValidationError(await get(`/v1/customers/${customerId}/consent-compliance`), [{ field: 'templateKey', reason: 'required' }]);
      expectProblem(await compliance(customerId, `unknown-${randomUUID()}`), 404, 'NOT_FOUND');
      expectProblem(await compliance(randomUUID(), templateKey), 404, 'NOT_FOUND');
      expectProblem(await compliance(customerId, templateKey, otherKey), 404, 'NOT_FOUND');
      expectValidationError(await post('/v1/configurations', { templateKey: `x-${randomUUID()}`, title: 't', text: 't', channel: 'digital', captureTiming: 'deferred_external', gracePeriodDays: 3 }), [
        { field: 'gracePeriodDays', reason: 'grace_period_requires_earlier_version' },
      ]);
    });

    it('after the grace period and the initial window pass, the earlier version and the expired REDEC consent no longer satisfy', async () => {
      const generalKey = `tos-${randomUUID()}`;
      const v1 = await publish(generalKey);
      const redecKey = `redec-${randomUUID()}`;
      const redec = await publishRedec(redecKey);
      const customerId = await customer();
      await grantGeneral(v1.configurationId, customerId);
      await grantRedec(redec.configurationId, customerId);
      await publish(generalKey, { gracePeriodDays: 30 });
      expect((await compliance(customerId, generalKey)).body.status).toBe('complies');
      expect((await compliance(customerId, redecKey)).body.status).toBe('complies');

      // 40 days on: past the 30-day grace, and past 15 banking business days.
      await api.close();
      api = await startApiApp(environment, { LEDGER_WORKERS: 'external', LEDGER_CLOCK_OFFSET_MS: String(40 * DAY) });
      expect((await get(`/v1/customers/${customerId}/consents`)).body.consents.find((c: { kind: string }) => c.kind === 'redec')).toMatchObject({ status: 'expired' });
      expect((await compliance(customerId, redecKey)).body).toMatchObject({ status: 'non_compliant', acceptedVersion: null, evaluatedVersion: 1 });
      expect((await compliance(customerId, generalKey)).body).toMatchObject({
        status: 'non_compliant',
        acceptedVersion: 1,
        evaluatedVersion: 2,
        pendingRequirements: [{ code: 'acceptance_required', version: 2 }],
        pendingVersionChanges: [],
      });
    });
  });
});
