import { randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { BASELINE_PROFILE, addYears, redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// docs/reference/revocations.md, docs/reference/credit-extensions.md and
// docs/reference/states.md, with docs/reference/errors.md: revocation
// and credit extensions through the real HTTP stack, SQLite store and Redis,
// and the status and retention the regulatory read derives from them.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
const MINUTE = 60_000;

describe('REDEC consent lifecycle: revocation and credit extensions', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let tenantId: string;
  let readerOnly: string;
  let consents: ReturnType<typeof redecConsents>;
  let other: { key: string; consent: GrantedConsent };

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  /** POSTs with a fresh Idempotency-Key unless one is given; `null` sends none. */
  const post = (path: string, body: unknown, options: { apiKey?: string; idempotencyKey?: string | null } = {}) => {
    const call = api.http.post(path).set(auth(options.apiKey));
    const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
    return (idempotencyKey === null ? call : call.set('Idempotency-Key', idempotencyKey)).send(body as object);
  };
  const revocation = (overrides: Record<string, unknown> = {}) => ({
    channel: 'digital',
    occurredAt: Date.now() - 1_000,
    sourceType: 'direct',
    identityAssurance: 'client_authenticated',
    ...overrides,
  });
  const revoke = (consent: GrantedConsent, body: unknown, options?: Parameters<typeof post>[2]) => post(`/v1/redec/consents/${consent.redecConsentId}/revoke`, body, options);
  const extension = (consent: GrantedConsent, overrides: Record<string, unknown> = {}) => ({
    customerTenantId: consent.customerId,
    objectiveCode: '02',
    creditOperationReference: `op-${randomUUID()}`,
    creditGrantedAt: consent.grantedAt + MINUTE / 2,
    sourceSystem: 'core-loans',
    sourceReference: `loan-${randomUUID()}`,
    ...overrides,
  });
  const register = (consent: GrantedConsent, body: unknown, options?: Parameters<typeof post>[2]) =>
    post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions`, body, options);
  const end = (consent: GrantedConsent, creditExtensionId: string, body: unknown, options?: Parameters<typeof post>[2]) =>
    post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${creditExtensionId}/end`, body, options);
  const read = async (consent: GrantedConsent) => {
    const response = await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth());
    expect(response.status).toBe(200);
    return response.body;
  };
  const consentCode = (sourceSystem: string, obligationReference: string) =>
    api.http.get('/v1/redec/reportable-obligations/consent-code').query({ sourceSystem, obligationReference }).set(auth());
  const recordsNothing = <T>(act: () => Promise<T>) => recordsNoFact(api, act);
  /** A consent granted two minutes ago, so that credits and revocations can be placed between the grant and now. */
  const granted = () => consents.grant({ occurredAt: Date.now() - 2 * MINUTE });

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    const tenant = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    key = tenant.apiKey;
    tenantId = tenant.tenantId;
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    readerOnly = (await issueApiKey(api.store, { tenantId: tenant.tenantId, scopes: ['consent:read', 'consent:runtime'] }, operator)).apiKey;
    consents = redecConsents(api, key);
    const otherKey = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey;
    other = { key: otherKey, consent: await redecConsents(api, otherKey).grant() };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('revocation', () => {
    it('makes a granted consent revoked, with the floor 5 years from revokedAt, and carries what the revoke notice needs', async () => {
      const consent = await granted();
      const body = revocation();
      const response = await revoke(consent, body);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        redecConsentId: consent.redecConsentId,
        consentActionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        internalConsentCode: consent.internalConsentCode,
        revokedAt: body.occurredAt,
        channel: 'digital',
        sourceType: 'direct',
        identityAssurance: 'client_authenticated',
        effective: true,
        recordedAt: expect.any(Number),
        consentStatus: 'revoked',
      });
      expect(response.body.consentActionId).not.toBe(consent.consentActionId);
      const representation = await read(consent);
      expect(representation).toMatchObject({
        status: 'revoked',
        revocation: { revokedAt: body.occurredAt, channel: 'digital', effective: true, effectiveAt: body.occurredAt, correctedAt: null },
        retentionUntil: addYears(body.occurredAt, 5),
        retentionBasis: 'revocation',
      });
    });

    it('needs an Idempotency-Key stable per operation: a retry answers the first revocation, another request with it is 422', async () => {
      const consent = await granted();
      expectProblem(await recordsNothing(() => revoke(consent, revocation(), { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      const idempotencyKey = randomUUID();
      const body = revocation();
      const first = await revoke(consent, body, { idempotencyKey });
      expect(first.status).toBe(201);
      const retry = await recordsNothing(() => revoke(consent, body, { idempotencyKey }));
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expectProblem(await revoke(consent, { ...body, occurredAt: body.occurredAt - 1 }, { idempotencyKey }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectProblem(await recordsNothing(() => revoke(consent, body)), 409, 'redec_consent_already_revoked');
    });

    it('refuses, recording nothing, an occurredAt after receipt or before the grant, and an identity assurance the profile does not accept', async () => {
      const consent = await granted();
      const refusals: Array<[Record<string, unknown>, string, string]> = [
        [{ occurredAt: Date.now() + 60_000 }, 'occurredAt', 'occurred_at_after_receipt'],
        [{ occurredAt: consent.grantedAt - 1 }, 'occurredAt', 'occurred_at_before_grant'],
        [{ identityAssurance: 'self_declared' }, 'identityAssurance', 'identity_assurance_not_accepted'],
        // The baseline accepts an identity document only in person.
        [{ identityAssurance: 'identity_document_verified' }, 'identityAssurance', 'identity_assurance_not_accepted'],
      ];
      for (const [overrides, field, reason] of refusals) {
        expectValidationError(await recordsNothing(() => revoke(consent, revocation(overrides))), [{ field, reason }], reason);
      }
      for (const [overrides, field] of [
        [{ channel: 'fax' }, 'channel'],
        [{ sourceType: 'regulator' }, 'sourceType'],
        [{ occurredAt: '2026-11-22' }, 'occurredAt'],
        [{ identityAssurance: '' }, 'identityAssurance'],
        [{ effective: false }, 'effective'],
      ] as Array<[Record<string, unknown>, string]>) {
        expectValidationError(await recordsNothing(() => revoke(consent, revocation(overrides))), [{ field, reason: expect.any(String) }]);
      }
      const missing = await recordsNothing(() => revoke(consent, {}));
      expectValidationError(
        missing,
        ['channel', 'occurredAt', 'sourceType', 'identityAssurance'].map((field) => ({ field, reason: 'required' })),
      );
      const inPerson = await revoke(consent, revocation({ channel: 'in_person', identityAssurance: 'identity_document_verified' }));
      expect(inPerson.status).toBe(201);
    });

    it('is 404, reading nothing, for a path id that is not a UUID; an upper-case id names the same consent', async () => {
      const consent = await granted();
      for (const id of ['not-a-uuid', `${consent.redecConsentId}x`, '..%2F..%2Fetc']) {
        expectProblem(await recordsNothing(() => revoke({ redecConsentId: id } as GrantedConsent, revocation())), 404, 'NOT_FOUND');
      }
      const upper = await revoke({ redecConsentId: consent.redecConsentId.toUpperCase() } as GrantedConsent, revocation());
      expect(upper.status).toBe(201);
      expect(upper.body.redecConsentId).toBe(consent.redecConsentId);
    });

    it('is 404 for an unknown consent or one of another tenant, and needs consent:write', async () => {
      expectProblem(await revoke({ redecConsentId: randomUUID() } as GrantedConsent, revocation()), 404, 'NOT_FOUND');
      expectProblem(await recordsNothing(() => revoke(other.consent, revocation())), 404, 'NOT_FOUND');
      const consent = await granted();
      expectProblem(await recordsNothing(() => revoke(consent, revocation(), { apiKey: readerOnly })), 403, 'INSUFFICIENT_SCOPE');
    });

    it('is kept with effective: false when a credit had been granted before it; the consent stays extended', async () => {
      const consent = await granted();
      expect((await register(consent, extension(consent))).status).toBe(201);
      const response = await revoke(consent, revocation());
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ effective: false, consentStatus: 'extended' });
      expect(await read(consent)).toMatchObject({ status: 'extended', revocation: { effective: false, correctedAt: null }, retentionUntil: null, retentionBasis: null });
    });
  });

  describe('credit extensions', () => {
    it('extends the consent for the exact credit operation, readable in the representation and by creditOperationReference', async () => {
      const consent = await granted();
      const body = extension(consent);
      const response = await register(consent, body);
      expect(response.status).toBe(201);
      const record = {
        creditExtensionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        objectiveCode: '02',
        creditOperationReference: body.creditOperationReference,
        creditGrantedAt: body.creditGrantedAt,
        extendedAt: expect.any(Number),
        status: 'active',
        endReason: null,
        endedAt: null,
        supersededByObligationReference: null,
        effective: true,
        ineffectiveReason: null,
      };
      expect(response.body).toEqual({ ...record, redecConsentId: consent.redecConsentId, consentStatus: 'extended', revocation: null });
      const representation = await read(consent);
      expect(representation).toMatchObject({ status: 'extended', retentionUntil: null, retentionBasis: null });
      expect(representation.creditExtensions).toEqual([{ ...record, creditExtensionId: response.body.creditExtensionId, extendedAt: response.body.extendedAt }]);
      const lookup = await api.http.get('/v1/redec/consents').query({ creditOperationReference: body.creditOperationReference }).set(auth());
      expect(lookup.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([consent.redecConsentId]);
      const foreign = await api.http.get('/v1/redec/consents').query({ creditOperationReference: body.creditOperationReference }).set(auth(other.key));
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 200, body: { consents: [] } });
      // Registering the extension (docs/reference/obligations.md, "Binding an obligation") produces the exact obligation binding, under the consent's obligation source system.
      expect((await consentCode('core-loans', body.creditOperationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consent.internalConsentCode });
      expect((await consentCode('core-cards', body.creditOperationReference)).body).toMatchObject({ result: 'unresolved', consentCode: null });
    });

    it("refuses another customer's credit, an objective not granted, a credit outside the window or after receipt, and a second active extension of one operation", async () => {
      const consent = await granted();
      const someoneElse = await granted();
      const refusals: Array<[Record<string, unknown>, number, string]> = [
        [{ customerTenantId: someoneElse.customerId }, 422, 'redec_credit_extension_customer_mismatch'],
        [{ objectiveCode: '07' }, 422, 'redec_objective_not_granted'],
        [{ creditGrantedAt: consent.grantedAt - 1 }, 422, 'redec_credit_granted_outside_initial_window'],
        [{ creditGrantedAt: Date.now() + 60_000 }, 400, 'VALIDATION_ERROR'],
      ];
      for (const [overrides, status, code] of refusals) {
        expectProblem(await recordsNothing(() => register(consent, extension(consent, overrides))), status, code);
      }
      const body = extension(consent);
      expect((await register(consent, body)).status).toBe(201);
      expectProblem(await recordsNothing(() => register(consent, { ...body, sourceReference: 'another' })), 409, 'redec_credit_extension_already_registered');
    });

    it('validates the body, needs an Idempotency-Key and consent:write, and is 404 across tenants', async () => {
      const consent = await granted();
      const missing = await recordsNothing(() => register(consent, {}));
      expectValidationError(
        missing,
        ['customerTenantId', 'objectiveCode', 'creditOperationReference', 'creditGrantedAt', 'sourceSystem'].map((field) => ({ field, reason: expect.any(String) })),
      );
      expectValidationError(await recordsNothing(() => register(consent, { ...extension(consent), status: 'active' })), [{ field: 'status', reason: expect.any(String) }]);
      expectProblem(await recordsNothing(() => register(consent, extension(consent), { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expectProblem(await recordsNothing(() => register(consent, extension(consent), { apiKey: readerOnly })), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await recordsNothing(() => register(other.consent, extension(other.consent))), 404, 'NOT_FOUND');

      const idempotencyKey = randomUUID();
      const body = extension(consent);
      const first = await register(consent, body, { idempotencyKey });
      const retry = await recordsNothing(() => register(consent, body, { idempotencyKey }));
      expect([retry.status, retry.body]).toEqual([201, first.body]);
    });

    describe('the correction of an accepted revocation', () => {
      it('a credit granted before revokedAt, with a sourceReference, leaves the revocation effective: false with correctedAt; the consent is extended', async () => {
        const consent = await granted();
        const revokedAt = Date.now() - MINUTE;
        expect((await revoke(consent, revocation({ occurredAt: revokedAt }))).body.effective).toBe(true);
        const response = await register(consent, extension(consent, { creditGrantedAt: revokedAt - 1 }));
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({ consentStatus: 'extended' });
        // The revocation in the regulatory read's shape (docs/reference/regulatory-representation.md, "Revocation").
        expect(response.body.revocation).toEqual({ revokedAt, channel: 'digital', effective: false, effectiveAt: null, correctedAt: expect.any(Number) });
        // No correction notice: the regulatory read reflects the right state.
        expect(await read(consent)).toMatchObject({
          status: 'extended',
          revocation: { revokedAt, effective: false, correctedAt: response.body.revocation.correctedAt },
          retentionUntil: null,
        });
      });

      it('without a non-empty sourceReference is 422 redec_revocation_correction_requires_source_reference and records nothing', async () => {
        const consent = await granted();
        const revokedAt = Date.now() - MINUTE;
        await revoke(consent, revocation({ occurredAt: revokedAt }));
        const { sourceReference: _omitted, ...withoutReference } = extension(consent, { creditGrantedAt: revokedAt - 1 });
        for (const body of [withoutReference, { ...withoutReference, sourceReference: '' }, { ...withoutReference, sourceReference: '   ' }]) {
          expectProblem(await recordsNothing(() => register(consent, body)), 422, 'redec_revocation_correction_requires_source_reference');
        }
        expect(await read(consent)).toMatchObject({ status: 'revoked', revocation: { effective: true, correctedAt: null }, creditExtensions: [] });
      });

      it('a credit granted at or after an effective revocation cannot extend the consent: 422 redec_credit_granted_after_revocation', async () => {
        const consent = await granted();
        const revokedAt = Date.now() - MINUTE;
        await revoke(consent, revocation({ occurredAt: revokedAt }));
        for (const creditGrantedAt of [revokedAt, revokedAt + 1]) {
          expectProblem(await recordsNothing(() => register(consent, extension(consent, { creditGrantedAt }))), 422, 'redec_credit_granted_after_revocation');
        }
      });
    });

    describe('end (reported once)', () => {
      async function extended() {
        const consent = await granted();
        const registered = await register(consent, extension(consent));
        expect(registered.status).toBe(201);
        return { consent, creditExtensionId: registered.body.creditExtensionId as string, creditOperationReference: registered.body.creditOperationReference as string };
      }

      it('ends the extension with its reason and endedAt; the consent goes back to granted inside the window', async () => {
        const { consent, creditExtensionId } = await extended();
        const response = await end(consent, creditExtensionId, { endReason: 'obligation_extinguished' });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ creditExtensionId, status: 'ended', endReason: 'obligation_extinguished', endedAt: expect.any(Number), supersededByObligationReference: null, consentStatus: 'granted' });
        expect((await read(consent)).creditExtensions[0]).toMatchObject({ status: 'ended', endReason: 'obligation_extinguished', endedAt: response.body.endedAt });
      });

      it('after the end, a revocation kept without effect takes effect at endedAt, recorded as a fact, with the floor from then', async () => {
        const { consent, creditExtensionId } = await extended();
        expect((await revoke(consent, revocation())).body.effective).toBe(false);
        const before = await api.store.headPosition();
        const ended = await end(consent, creditExtensionId, { endReason: 'acceleration_executed' });
        expect(ended.body).toMatchObject({ consentStatus: 'revoked', revocation: { effective: true, effectiveAt: ended.body.endedAt } });
        expect(await read(consent)).toMatchObject({
          status: 'revoked',
          revocation: { effective: true, effectiveAt: ended.body.endedAt },
          retentionUntil: addYears(ended.body.endedAt, 5),
          retentionBasis: 'revocation',
        });
        const recorded = (await api.store.readAll({ after: before })).filter((e) => e.streamId === redecStreams.consent(tenantId, consent.redecConsentId));
        expect(recorded.map((e) => [e.type, e.data])).toEqual([
          ['CreditExtensionEnded', expect.objectContaining({ creditExtensionId, endReason: 'acceleration_executed', endedAt: ended.body.endedAt })],
          ['RevocationTookEffect', { redecConsentId: consent.redecConsentId, consentActionId: expect.any(String), effectiveAt: ended.body.endedAt }],
        ]);
      });

      it('takes supersededByObligationReference only, and always, with superseded_by_new_obligation', async () => {
        const { consent, creditExtensionId } = await extended();
        expectValidationError(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'superseded_by_new_obligation' })), [
          { field: 'supersededByObligationReference', reason: 'required' },
        ]);
        expectValidationError(
          await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished', supersededByObligationReference: 'op-new' })),
          [{ field: 'supersededByObligationReference', reason: 'only_with_superseded_by_new_obligation' }],
        );
        expectValidationError(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'paid' })), [{ field: 'endReason', reason: expect.any(String) }]);
        const superseded = await end(consent, creditExtensionId, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-new' });
        expect(superseded.body).toMatchObject({ status: 'ended', endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-new' });
        // The new obligation does not inherit the consent: no consent lists it, and it has no code.
        const inherited = await api.http.get('/v1/redec/consents').query({ creditOperationReference: 'op-new' }).set(auth());
        expect(inherited.body).toEqual({ consents: [] });
        expect((await consentCode('core-loans', 'op-new')).body).toMatchObject({ result: 'unresolved', consentCode: null });
      });

      it('is reported once: a second end is 409, an exact retry with the same key answers the first end', async () => {
        const { consent, creditExtensionId } = await extended();
        const idempotencyKey = randomUUID();
        const first = await end(consent, creditExtensionId, { endReason: 'obligation_extinguished' }, { idempotencyKey });
        expect(first.status).toBe(200);
        const retry = await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished' }, { idempotencyKey }));
        expect([retry.status, retry.body]).toEqual([200, first.body]);
        expectProblem(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished' })), 409, 'redec_credit_extension_already_ended');
        expectProblem(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished' }, { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      });

      it('is 404 for an unknown extension or consent', async () => {
        const { consent } = await extended();
        expectProblem(await recordsNothing(() => end(consent, randomUUID(), { endReason: 'obligation_extinguished' })), 404, 'NOT_FOUND');
        expectProblem(await recordsNothing(() => end(other.consent, randomUUID(), { endReason: 'obligation_extinguished' })), 404, 'NOT_FOUND');
      });
    });
  });

  // Issue 12: the holes through which a revoked or superseded consent still enabled access. Each
  // test drives the lifecycle through HTTP into a state the law forbids and shows it refused.
  describe('regulatory invariants (decision 0023)', () => {
    const annul = (consent: GrantedConsent, creditExtensionId: string, what: 'annul' | 'end/annul', options?: Parameters<typeof post>[2]) =>
      post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${creditExtensionId}/${what}`, { reason: 'registered by mistake', sourceReference: `ticket-${randomUUID()}` }, options);
    /** A consent extended for one credit, then revoked: the revocation is kept without effect. */
    async function keptRevocation() {
      const consent = await granted();
      const registered = await register(consent, extension(consent));
      expect(registered.status).toBe(201);
      const revoked = await revoke(consent, revocation({ occurredAt: Date.now() - 30_000 }));
      expect(revoked.body).toMatchObject({ effective: false, consentStatus: 'extended' });
      return { consent, creditExtensionId: registered.body.creditExtensionId as string, reference: registered.body.creditOperationReference as string, revokedAt: revoked.body.revokedAt as number };
    }

    it('a kept revocation accepts no new extension for a credit granted at or after it (422 redec_credit_granted_after_revocation), and still one granted before it', async () => {
      const { consent, revokedAt } = await keptRevocation();
      for (const creditGrantedAt of [revokedAt, revokedAt + 1]) {
        expectProblem(await recordsNothing(() => register(consent, extension(consent, { creditGrantedAt }))), 422, 'redec_credit_granted_after_revocation');
      }
      // docs/reference/credit-extensions.md, "Correcting an accepted revocation": a credit before the accepted revokedAt is traced to the bank's record, the revocation kept or not.
      const { sourceReference: _omitted, ...untraced } = extension(consent, { creditGrantedAt: revokedAt - 1 });
      expectProblem(await recordsNothing(() => register(consent, untraced)), 422, 'redec_revocation_correction_requires_source_reference');
      expect((await register(consent, extension(consent, { creditGrantedAt: revokedAt - 1 }))).status).toBe(201);
      expect((await read(consent)).creditExtensions).toHaveLength(2);
    });

    it('an obligation whose extension ended is not registered again, on this consent or on another of the tenant: 409 redec_credit_extension_already_ended', async () => {
      const consent = await granted();
      const body = extension(consent);
      const registered = await register(consent, body);
      await end(consent, registered.body.creditExtensionId, { endReason: 'obligation_extinguished' });
      expectProblem(await recordsNothing(() => register(consent, body)), 409, 'redec_credit_extension_already_ended');
      const another = await granted();
      expectProblem(await recordsNothing(() => register(another, extension(another, { creditOperationReference: body.creditOperationReference }))), 409, 'redec_credit_extension_already_ended');
      expect(await read(consent)).toMatchObject({ status: 'granted', creditExtensions: [{ status: 'ended' }] });
    });

    it("the superseding obligation does not inherit the consent: no extension of it (422), no binding of it (422), and the lookup never answers the consent's code", async () => {
      const consent = await granted();
      const registered = await register(consent, extension(consent));
      const superseding = `op-${randomUUID()}`;
      // Bound before the end, the superseding obligation would still resolve to this consent.
      const bindBody = { sourceSystem: 'core-loans', obligationReference: superseding, kind: 'consent', redecConsentId: consent.redecConsentId, obligationGrantedAt: Date.now() - 1000 };
      const runtime = { apiKey: readerOnly };
      expect((await post('/v1/redec/reportable-obligations/bindings', bindBody, runtime)).status).toBe(201);
      expect((await consentCode('core-loans', superseding)).body).toMatchObject({ result: 'consent_code' });

      await end(consent, registered.body.creditExtensionId, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: superseding });
      expect((await consentCode('core-loans', superseding)).body).toMatchObject({ result: 'unresolved', consentCode: null });
      expectProblem(await recordsNothing(() => register(consent, extension(consent, { creditOperationReference: superseding }))), 422, 'redec_superseding_obligation_does_not_inherit_consent');
      expectProblem(await recordsNothing(() => post('/v1/redec/reportable-obligations/bindings', { ...bindBody, obligationGrantedAt: Date.now() - 500 }, runtime)), 422, 'redec_superseding_obligation_does_not_inherit_consent');
      expect((await consentCode('core-loans', superseding)).body).toMatchObject({ result: 'unresolved', consentCode: null });
    });

    it("the end's occurredAt is when the obligation ended: endedAt and the retention floor follow it; it is bounded like every caller instant", async () => {
      const consent = await granted();
      const registered = await register(consent, extension(consent));
      const { creditExtensionId, creditGrantedAt } = registered.body;
      const now = Date.now();
      expectValidationError(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished', occurredAt: now + MINUTE })), [{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }]);
      expectValidationError(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished', occurredAt: creditGrantedAt - 1 })), [
        { field: 'occurredAt', reason: 'occurred_at_before_credit_granted' },
      ]);
      expectValidationError(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished', occurredAt: now - BASELINE_PROFILE.maxOccurredAtSkewMs - MINUTE })), [
        { field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' },
      ]);
      await revoke(consent, revocation({ occurredAt: creditGrantedAt + 1000 }));
      const occurredAt = creditGrantedAt + 5000;
      const ended = await end(consent, creditExtensionId, { endReason: 'obligation_extinguished', occurredAt });
      expect(ended.body).toMatchObject({ endedAt: occurredAt, consentStatus: 'revoked', revocation: { effective: true, effectiveAt: occurredAt } });
      expect(await read(consent)).toMatchObject({ retentionUntil: addYears(occurredAt, 5), retentionBasis: 'revocation' });
    });

    it('a revocation may be neither back-dated further than the profile allows nor before the grant, and one back-dated before a live credit stops the consent (decision 0054)', async () => {
      const consent = await granted();
      const now = Date.now();
      expectValidationError(await recordsNothing(() => revoke(consent, revocation({ occurredAt: now - BASELINE_PROFILE.maxOccurredAtSkewMs - MINUTE }))), [
        { field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' },
      ]);
      expectValidationError(await recordsNothing(() => revoke(consent, revocation({ occurredAt: consent.grantedAt - 1 }))), [{ field: 'occurredAt', reason: 'occurred_at_before_grant' }]);
      const registered = await register(consent, extension(consent, { creditGrantedAt: now - MINUTE }));
      // Back-dated before the credit was granted: the credit came after the data subject revoked, so it keeps nothing alive.
      const revoked = await revoke(consent, revocation({ occurredAt: now - 90_000 }));
      expect(revoked.body).toMatchObject({ effective: true, consentStatus: 'revoked' });
      expect(await read(consent)).toMatchObject({
        status: 'revoked',
        revocation: { effective: true, effectiveAt: now - 90_000 },
        creditExtensions: [{ creditExtensionId: registered.body.creditExtensionId, status: 'active', effective: false, ineffectiveReason: 'credit_granted_after_revocation' }],
      });
    });

    it("takes the customer's id in any letter case, since it is a UUID", async () => {
      const consent = await granted();
      expect((await register(consent, extension(consent, { customerTenantId: consent.customerId.toUpperCase() }))).status).toBe(201);
      expectProblem(await recordsNothing(() => register(consent, extension(consent, { customerTenantId: `${consent.customerId}x` }))), 422, 'redec_credit_extension_customer_mismatch');
    });

    it('never reads revoked with effective: false', async () => {
      const { consent } = await keptRevocation();
      expect(await read(consent)).toMatchObject({ status: 'extended', revocation: { effective: false, effectiveAt: null }, retentionUntil: null, retentionBasis: null });
    });

    describe('annulments (consent:admin, append-only)', () => {
      it('of an extension: gone from the read and the lookup, the facts kept; the obligation can be registered again', async () => {
        const consent = await granted();
        const body = extension(consent);
        const registered = await register(consent, body);
        const { creditExtensionId } = registered.body;
        expectProblem(await recordsNothing(() => annul(consent, creditExtensionId, 'annul', { apiKey: readerOnly })), 403, 'INSUFFICIENT_SCOPE');
        expectProblem(await recordsNothing(() => annul(consent, creditExtensionId, 'annul', { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
        const annulled = await annul(consent, creditExtensionId, 'annul');
        expect(annulled.status).toBe(200);
        expect(annulled.body).toEqual({
          redecConsentId: consent.redecConsentId,
          creditExtensionId,
          annulled: 'credit_extension',
          reason: 'registered by mistake',
          sourceReference: expect.any(String),
          annulledAt: expect.any(Number),
          consentStatus: 'granted',
          revocation: null,
        });
        expect(await read(consent)).toMatchObject({ status: 'granted', creditExtensions: [] });
        expect((await consentCode('core-loans', body.creditOperationReference)).body).toMatchObject({ result: 'unresolved' });
        const facts = await api.store.readStream(redecStreams.consent(tenantId, consent.redecConsentId));
        expect(facts.map((e) => e.type)).toEqual(['ConsentGranted', 'CreditExtensionRegistered', 'CreditExtensionAnnulled']);
        expectProblem(await recordsNothing(() => annul(consent, creditExtensionId, 'annul')), 409, 'redec_credit_extension_annulled');
        expectProblem(await recordsNothing(() => end(consent, creditExtensionId, { endReason: 'obligation_extinguished' })), 409, 'redec_credit_extension_annulled');
        expect((await register(consent, body)).status).toBe(201);
        expect((await consentCode('core-loans', body.creditOperationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consent.internalConsentCode });
      });

      it('of the last extension over a kept revocation: the revocation takes effect from revokedAt', async () => {
        const { consent, creditExtensionId, revokedAt } = await keptRevocation();
        const annulled = await annul(consent, creditExtensionId, 'annul');
        expect(annulled.body).toMatchObject({ consentStatus: 'revoked', revocation: { effective: true, effectiveAt: revokedAt } });
        expect(await read(consent)).toMatchObject({ status: 'revoked', retentionBasis: 'revocation', retentionUntil: addYears(revokedAt, 5) });
      });

      it('of an end: the extension is active again and the revocation that end made effective is kept again; it can be ended anew', async () => {
        const { consent, creditExtensionId } = await keptRevocation();
        expectProblem(await recordsNothing(() => annul(consent, creditExtensionId, 'end/annul')), 409, 'redec_credit_extension_not_ended');
        await end(consent, creditExtensionId, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: `op-${randomUUID()}` });
        expect((await read(consent)).status).toBe('revoked');
        const annulled = await annul(consent, creditExtensionId, 'end/annul');
        expect(annulled.body).toMatchObject({ annulled: 'credit_extension_end', consentStatus: 'extended', revocation: { effective: false, effectiveAt: null, correctedAt: annulled.body.annulledAt } });
        expect(await read(consent)).toMatchObject({ status: 'extended', creditExtensions: [{ status: 'active', endReason: null, endedAt: null, supersededByObligationReference: null }] });
        expectProblem(await recordsNothing(() => annul(consent, creditExtensionId, 'end/annul')), 409, 'redec_credit_extension_not_ended');
        expect((await end(consent, creditExtensionId, { endReason: 'obligation_extinguished' })).body).toMatchObject({ consentStatus: 'revoked' });
      });

      it('answers an exact retry with the same key, and 404 for an extension the consent never had', async () => {
        const consent = await granted();
        const registered = await register(consent, extension(consent));
        const idempotencyKey = randomUUID();
        const body = { reason: 'duplicate', sourceReference: 'ticket-1' };
        const path = `/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${registered.body.creditExtensionId}/annul`;
        const first = await post(path, body, { idempotencyKey });
        const retry = await recordsNothing(() => post(path, body, { idempotencyKey }));
        expect([retry.status, retry.body]).toEqual([200, first.body]);
        expectProblem(await recordsNothing(() => annul(consent, randomUUID(), 'annul')), 404, 'NOT_FOUND');
        expectValidationError(await recordsNothing(() => post(path.replace(registered.body.creditExtensionId, randomUUID()), { reason: '' })), [
          { field: 'reason', reason: 'must_not_be_empty' },
          { field: 'sourceReference', reason: 'required' },
        ]);
      });
    });
  });
});
