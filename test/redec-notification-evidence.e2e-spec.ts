import { createHash, randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// docs/reference/notification-evidence.md, with docs/reference/authentication.md
// and docs/reference/errors.md: notification evidence through the real HTTP stack, SQLite store and Redis. Without the
// certificate worker nothing else writes, so a refused request can be checked
// to record nothing.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const RESPONSE_FIELDS = ['notificationEvidenceId', 'consentActionId', 'internalConsentCode', 'notificationReason', 'status', 'sentAt', 'recordedAt'].sort();
const REQUIRED_FIELDS = ['notificationReason', 'notificationChannel', 'recipientHash', 'status', 'sentAt', 'sourceSystem', 'sourceReference', 'contentSha256'];

describe('REDEC notification evidence', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let withoutRuntime: string;
  let consents: ReturnType<typeof redecConsents>;
  let other: { key: string; consent: GrantedConsent };

  const notice = (consent: GrantedConsent, overrides: Record<string, unknown> = {}) => ({
    notificationReason: 'grant',
    notificationChannel: 'email',
    recipientHash: sha256('ana.perez@example.cl'),
    status: 'sent',
    sentAt: consent.grantedAt + 1_000,
    sourceSystem: 'notifier',
    sourceReference: `msg-${randomUUID()}`,
    contentSha256: sha256('Estimada Ana: registramos su consentimiento REDEC.'),
    ...overrides,
  });
  /** POSTs the evidence with a fresh Idempotency-Key unless one is given; `null` sends none. */
  const record = (redecConsentId: string, body: unknown, options: { apiKey?: string; idempotencyKey?: string | null } = {}) => {
    const call = api.http.post(`/v1/redec/consents/${redecConsentId}/notification-evidence`).set({ Authorization: `Bearer ${options.apiKey ?? key}` });
    const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
    return (idempotencyKey === null ? call : call.set('Idempotency-Key', idempotencyKey)).send(body as object);
  };
  const evidenceView = (redecConsentId: string) => api.http.get(`/v1/redec/consents/${redecConsentId}/evidence`).set({ Authorization: `Bearer ${key}` });

  const recordsNothing = <T>(act: () => Promise<T>) => recordsNoFact(api, act);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    const tenant = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:runtime']);
    key = tenant.apiKey;
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    withoutRuntime = (await issueApiKey(api.store, { tenantId: tenant.tenantId, scopes: ['consent:admin', 'consent:write', 'consent:read'] }, operator)).apiKey;
    consents = redecConsents(api, key);

    const otherKey = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:runtime'])).apiKey;
    other = { key: otherKey, consent: await redecConsents(api, otherKey).grant() };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('of the grant answers 201 with the grant action and the internalConsentCode', async () => {
    const consent = await consents.grant();
    const body = notice(consent);
    const response = await record(consent.redecConsentId, body);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(RESPONSE_FIELDS);
    expect(response.body).toMatchObject({
      notificationEvidenceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      consentActionId: consent.consentActionId,
      internalConsentCode: consent.internalConsentCode,
      notificationReason: 'grant',
      status: 'sent',
      sentAt: body.sentAt,
    });
    expect(response.body.recordedAt).toBeGreaterThanOrEqual(body.sentAt);
  });

  it('is append-only: sent then delivered are two records, both in the evidence view in order', async () => {
    const consent = await consents.grant();
    const common = notice(consent);
    const sent = { ...common, contentReference: 'mail://outbox/4711' };
    const delivered = { ...common, status: 'delivered' };
    const first = await record(consent.redecConsentId, sent);
    const second = await record(consent.redecConsentId, delivered);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.notificationEvidenceId).not.toBe(first.body.notificationEvidenceId);

    // Read-your-writes: the view shows both as soon as the second answer is out.
    const view = await evidenceView(consent.redecConsentId);
    expect(view.status).toBe(200);
    expect(view.body.notifications).toEqual([
      { ...common, contentReference: 'mail://outbox/4711', notificationEvidenceId: first.body.notificationEvidenceId, consentActionId: consent.consentActionId, recordedAt: first.body.recordedAt },
      { ...common, status: 'delivered', contentReference: null, notificationEvidenceId: second.body.notificationEvidenceId, consentActionId: consent.consentActionId, recordedAt: second.body.recordedAt },
    ]);
  });

  it('of a revocation before any is recorded is 409 redec_consent_not_revoked and records nothing', async () => {
    const consent = await consents.grant();
    const response = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { notificationReason: 'revoke' })));
    expectProblem(response, 409, 'redec_consent_not_revoked');
    expect((await evidenceView(consent.redecConsentId)).body.notifications).toEqual([]);
  });

  it('of a revocation is anchored to the revocation action, sent no earlier than revokedAt', async () => {
    const consent = await consents.grant();
    const revokedAt = Date.now() - 10_000;
    const revoked = await api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
      .set({ Authorization: `Bearer ${key}`, 'Idempotency-Key': randomUUID() })
      .send({ channel: 'digital', occurredAt: revokedAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });
    expect(revoked.status).toBe(201);

    const early = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { notificationReason: 'revoke', sentAt: revokedAt - 1 })));
    expectValidationError(early, [{ field: 'sentAt', reason: 'sent_at_before_notified_fact' }], 'sent_at_before_notified_fact');

    const response = await record(consent.redecConsentId, notice(consent, { notificationReason: 'revoke', sentAt: revokedAt }));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ notificationReason: 'revoke', consentActionId: revoked.body.consentActionId, internalConsentCode: consent.internalConsentCode, sentAt: revokedAt });
    expect(response.body.consentActionId).not.toBe(consent.consentActionId);
  });

  it('refuses a sentAt before the grant or after the receipt, recording nothing', async () => {
    const consent = await consents.grant();
    const beforeGrant = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { sentAt: consent.grantedAt - 1 })));
    expectValidationError(beforeGrant, [{ field: 'sentAt', reason: 'sent_at_before_notified_fact' }], 'sent_at_before_notified_fact');
    const afterReceipt = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { sentAt: Date.now() + 60_000 })));
    expectValidationError(afterReceipt, [{ field: 'sentAt', reason: 'sent_at_after_receipt' }], 'sent_at_after_receipt');

    const atGrant = await record(consent.redecConsentId, notice(consent, { sentAt: consent.grantedAt }));
    expect(atGrant.status).toBe(201);
  });

  it('refuses consentActionId and internalConsentCode: the service assigns them', async () => {
    const consent = await consents.grant();
    const actionSent = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { consentActionId: consent.consentActionId })));
    expectValidationError(actionSent, [{ field: 'consentActionId', reason: 'consent_action_id_is_server_assigned' }], 'consent_action_id_is_server_assigned');
    const codeSent = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { internalConsentCode: consent.internalConsentCode })));
    expectValidationError(codeSent, [{ field: 'internalConsentCode', reason: 'internal_consent_code_is_server_generated' }], 'internal_consent_code_is_server_generated');
  });

  it('names every missing field', async () => {
    const consent = await consents.grant();
    for (const field of REQUIRED_FIELDS) {
      const body: Record<string, unknown> = notice(consent);
      delete body[field];
      const response = await recordsNothing(() => record(consent.redecConsentId, body));
      expectValidationError(response, [{ field, reason: 'required' }]);
      expect(response.body.errors).toHaveLength(1);
    }
    const empty = await recordsNothing(() => record(consent.redecConsentId, {}));
    expectValidationError(empty, REQUIRED_FIELDS.map((field) => ({ field, reason: 'required' })));
    expect(empty.body.errors).toHaveLength(REQUIRED_FIELDS.length);
  });

  it('refuses a recipient address instead of its hash, and values outside the closed shape', async () => {
    const consent = await consents.grant();
    for (const recipientHash of ['ana.perez@example.cl', `${'a'.repeat(40)}@example.cl`]) {
      const response = await recordsNothing(() => record(consent.redecConsentId, notice(consent, { recipientHash })));
      expectValidationError(response, [{ field: 'recipientHash', reason: 'recipient_not_hashed' }]);
      expect(JSON.stringify(response.body)).not.toContain('example.cl');
    }
    const invalid: Array<[Record<string, unknown>, { field: string; reason: string }]> = [
      [{ recipientHash: 'a'.repeat(129) }, { field: 'recipientHash', reason: 'too_long' }],
      [{ recipientHash: '+56912345678' }, { field: 'recipientHash', reason: 'too_short' }],
      [{ notificationReason: 'correction' }, { field: 'notificationReason', reason: 'invalid_value' }],
      [{ status: 'read' }, { field: 'status', reason: 'invalid_value' }],
      [{ notificationChannel: 'E-Mail' }, { field: 'notificationChannel', reason: 'invalid_format' }],
      [{ contentSha256: 'A'.repeat(64) }, { field: 'contentSha256', reason: 'invalid_format' }],
      [{ sentAt: String(consent.grantedAt + 1_000) }, { field: 'sentAt', reason: 'must_be_integer' }],
      [{ contentReference: '' }, { field: 'contentReference', reason: 'must_not_be_empty' }],
      [{ recipient: 'ana.perez@example.cl' }, { field: 'recipient', reason: 'unknown_property' }],
    ];
    for (const [overrides, error] of invalid) {
      const response = await recordsNothing(() => record(consent.redecConsentId, notice(consent, overrides)));
      expectValidationError(response, [error]);
    }
  });

  it('needs the consent:runtime scope', async () => {
    const consent = await consents.grant();
    const response = await recordsNothing(() => record(consent.redecConsentId, notice(consent), { apiKey: withoutRuntime }));
    expectProblem(response, 403, 'INSUFFICIENT_SCOPE');
  });

  it('requires an Idempotency-Key; an exact retry replays the first answer, the same key on another request is 422', async () => {
    const consent = await consents.grant();
    const body = notice(consent);
    const withoutKey = await recordsNothing(() => record(consent.redecConsentId, body, { idempotencyKey: null }));
    expectProblem(withoutKey, 400, 'IDEMPOTENCY_KEY_REQUIRED');

    const idempotencyKey = randomUUID();
    const first = await record(consent.redecConsentId, body, { idempotencyKey });
    expect(first.status).toBe(201);
    const retry = await recordsNothing(() => record(consent.redecConsentId, body, { idempotencyKey }));
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);

    const reused = await recordsNothing(() => record(consent.redecConsentId, { ...body, status: 'delivered' }, { idempotencyKey }));
    expectProblem(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await evidenceView(consent.redecConsentId)).body.notifications).toHaveLength(1);
  });

  it("answers 404 NOT_FOUND for another tenant's consent and for an unknown one", async () => {
    const ownConsent = await consents.grant();
    for (const redecConsentId of [other.consent.redecConsentId, randomUUID(), 'not-a-consent-id']) {
      const response = await recordsNothing(() => record(redecConsentId, notice(ownConsent)));
      expectProblem(response, 404, 'NOT_FOUND');
    }
    const ofOtherTenant = await api.http.get(`/v1/redec/consents/${other.consent.redecConsentId}/evidence`).set({ Authorization: `Bearer ${other.key}` });
    expect(ofOtherTenant.body.notifications).toEqual([]);
  });
});
