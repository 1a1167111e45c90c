import { randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { ProjectionRunner } from '@ledger/projections';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// The certificate worker appends ArtifactStored on its own schedule; without it, a refused
// request can be checked to record nothing by the store's head position.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };

// docs/reference/obligations.md, through the real
// HTTP stack, SQLite store and Redis: every lookup result, what makes an
// obligation ambiguous, the exact two-field lookup, tenants, scopes,
// Idempotency-Key, and refusals that record nothing.

/** The obligation source system of the configuration test/support/redec-consents.ts publishes. */
const SOURCE_SYSTEM = 'core-loans';
const ALL_SCOPES: Scope[] = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('REDEC reportable-obligation bindings and the consent-code lookup', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let withoutRuntime: string;
  let withoutRead: string;
  let withoutAdmin: string;
  let consentA: GrantedConsent;
  let consentB: GrantedConsent;
  let other: { key: string; consent: GrantedConsent };

  const freshReference = () => `op-${randomUUID()}`;
  const auth = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });
  const bind = (body: Record<string, unknown>, options: { apiKey?: string; idempotencyKey?: string | null } = {}) => {
    const post = api.http.post('/v1/redec/reportable-obligations/bindings').set(auth(options.apiKey ?? key));
    const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
    return (idempotencyKey === null ? post : post.set('Idempotency-Key', idempotencyKey)).send(body);
  };
  /** When the bindings' obligations were granted: just after the consents, while they are in their initial window. */
  let obligationGrantedAt: number;
  const toConsent = (consent: GrantedConsent, obligationReference: string, sourceSystem = SOURCE_SYSTEM) => ({
    sourceSystem,
    obligationReference,
    kind: 'consent',
    redecConsentId: consent.redecConsentId,
    obligationGrantedAt,
  });
  const asKind = (kind: 'legacy_pre_redec' | 'no_applicable_consent', obligationReference: string, sourceSystem = SOURCE_SYSTEM) => ({
    sourceSystem,
    obligationReference,
    kind,
    obligationGrantedAt,
  });
  const consentCode = (query: Record<string, string>, apiKey = key) => api.http.get('/v1/redec/reportable-obligations/consent-code').query(query).set(auth(apiKey));
  const codeOf = (obligationReference: string, sourceSystem = SOURCE_SYSTEM, apiKey = key) => consentCode({ sourceSystem, obligationReference }, apiKey);
  const obligationFacts = (obligationReference: string, sourceSystem = SOURCE_SYSTEM, tenant = tenantId) =>
    api.store.readStream(redecStreams.obligation(tenant, sourceSystem, obligationReference));

  const recordsNothing = <T>(act: () => Promise<T>) => recordsNothingAtAll(api, act);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    ({ tenantId, apiKey: key } = await api.tenantKey(ALL_SCOPES));
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    const sameTenant = async (scopes: Scope[]) => (await issueApiKey(api.store, { tenantId, scopes }, operator)).apiKey;
    withoutRuntime = await sameTenant(ALL_SCOPES.filter((s) => s !== 'consent:runtime'));
    withoutRead = await sameTenant(ALL_SCOPES.filter((s) => s !== 'consent:read'));
    withoutAdmin = await sameTenant(ALL_SCOPES.filter((s) => s !== 'consent:admin'));
    const consents = redecConsents(api, key);
    consentA = await consents.grant();
    consentB = await consents.grant();
    obligationGrantedAt = Date.now();
    const otherKey = (await api.tenantKey(ALL_SCOPES)).apiKey;
    other = { key: otherKey, consent: await redecConsents(api, otherKey).grant() };
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('the lookup results', () => {
    it("consent_code: the consent's frozen internal code, after a 201 binding", async () => {
      const obligationReference = freshReference();
      const bound = await bind(toConsent(consentA, obligationReference));
      expect(bound.status).toBe(201);
      expect(bound.body).toEqual({
        bindingId: expect.stringMatching(UUID),
        sourceSystem: SOURCE_SYSTEM,
        obligationReference,
        kind: 'consent',
        redecConsentId: consentA.redecConsentId,
        internalConsentCode: consentA.internalConsentCode,
        obligationGrantedAt,
        boundAt: expect.any(Number),
      });

      const looked = await codeOf(obligationReference);
      expect(looked.status).toBe(200);
      expect(looked.body).toEqual({ sourceSystem: SOURCE_SYSTEM, obligationReference, result: 'consent_code', consentCode: consentA.internalConsentCode });
      expect(looked.body.consentCode).toHaveLength(20);
    });

    it.each([
      ['legacy_pre_redec', '99999999999999999999'],
      ['no_applicable_consent', '00000000000000000000'],
    ] as const)('%s: the 20-character field, written only in the answer and never stored as a code', async (kind, field) => {
      const obligationReference = freshReference();
      const bound = await bind(asKind(kind, obligationReference));
      expect(bound.status).toBe(201);
      expect(bound.body).toMatchObject({ kind, redecConsentId: null, internalConsentCode: null });
      expect((await obligationFacts(obligationReference)).map((e) => e.data)).toEqual([expect.objectContaining({ kind, redecConsentId: null, internalConsentCode: null })]);

      expect((await codeOf(obligationReference)).body).toEqual({ sourceSystem: SOURCE_SYSTEM, obligationReference, result: kind, consentCode: field });
    });

    it('unresolved, with no code, for an obligation never bound', async () => {
      const obligationReference = freshReference();
      const looked = await codeOf(obligationReference);
      expect(looked.status).toBe(200);
      expect(looked.body).toEqual({ sourceSystem: SOURCE_SYSTEM, obligationReference, result: 'unresolved', consentCode: null });
    });

    it.each([
      ['another consent', (reference: string) => toConsent(consentB, reference)],
      ['legacy_pre_redec', (reference: string) => asKind('legacy_pre_redec', reference)],
      ['no_applicable_consent', (reference: string) => asKind('no_applicable_consent', reference)],
    ])('ambiguous, with no code, once a different second binding (%s) is kept beside the first', async (_, second) => {
      const obligationReference = freshReference();
      expect((await bind(toConsent(consentA, obligationReference))).status).toBe(201);
      const kept = await bind(second(obligationReference));
      expect(kept.status).toBe(201);
      expect(await obligationFacts(obligationReference)).toHaveLength(2);
      expect((await codeOf(obligationReference)).body).toEqual({ sourceSystem: SOURCE_SYSTEM, obligationReference, result: 'ambiguous', consentCode: null });
    });

    it('stays resolved after an identical second binding, which answers the first one with 200 and records no fact', async () => {
      const obligationReference = freshReference();
      const first = await bind(toConsent(consentA, obligationReference));
      const again = await recordsNoFact(api, () => bind(toConsent(consentA, obligationReference)));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await obligationFacts(obligationReference)).toHaveLength(1);
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consentA.internalConsentCode });
    });
  });

  describe('the lookup is exact', () => {
    it('uses both fields: the same reference under another source system, or another reference, is not that obligation', async () => {
      const obligationReference = freshReference();
      await bind(toConsent(consentA, obligationReference));
      await bind(asKind('legacy_pre_redec', obligationReference, 'cards'));
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consentA.internalConsentCode });
      expect((await codeOf(obligationReference, 'cards')).body).toMatchObject({ result: 'legacy_pre_redec', consentCode: '9'.repeat(20) });
      expect((await codeOf(obligationReference, 'leasing')).body).toEqual({ sourceSystem: 'leasing', obligationReference, result: 'unresolved', consentCode: null });
      expect((await codeOf(`${obligationReference}-2`)).body).toMatchObject({ result: 'unresolved', consentCode: null });
    });

    it("keeps tenants apart: another tenant's obligation is unresolved here, and its consent cannot be bound", async () => {
      const obligationReference = freshReference();
      expect((await bind(toConsent(other.consent, obligationReference), { apiKey: other.key })).status).toBe(201);
      expect((await codeOf(obligationReference, SOURCE_SYSTEM, other.key)).body).toMatchObject({ result: 'consent_code', consentCode: other.consent.internalConsentCode });
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'unresolved', consentCode: null });

      const foreign = await recordsNoFact(api, () => bind(toConsent(other.consent, obligationReference)));
      expectProblem(foreign, 404, 'NOT_FOUND');
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'unresolved' });
    });
  });

  describe('refusals', () => {
    it('a consent the tenant does not have is 404 NOT_FOUND', async () => {
      const obligationReference = freshReference();
      const unknown = await recordsNoFact(api, () => bind({ ...toConsent(consentA, obligationReference), redecConsentId: randomUUID() }));
      expectProblem(unknown, 404, 'NOT_FOUND');
      expect(await obligationFacts(obligationReference)).toEqual([]);
    });

    it("an obligation of a source system other than the consent's is 422 redec_obligation_source_system_mismatch", async () => {
      const obligationReference = freshReference();
      const mismatch = await recordsNoFact(api, () => bind(toConsent(consentA, obligationReference, 'cards')));
      expectProblem(mismatch, 422, 'redec_obligation_source_system_mismatch');
      expect((await codeOf(obligationReference, 'cards')).body).toMatchObject({ result: 'unresolved' });
    });

    it.each([
      ['without sourceSystem', { obligationReference: 'op-1', kind: 'legacy_pre_redec' }, [{ field: 'sourceSystem', reason: 'required' }]],
      ['without obligationReference', { sourceSystem: SOURCE_SYSTEM, kind: 'legacy_pre_redec' }, [{ field: 'obligationReference', reason: 'required' }]],
      ['without kind', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1' }, [{ field: 'kind', reason: 'required' }]],
      ['with an unknown kind', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'latest_consent' }, [{ field: 'kind', reason: 'invalid_value' }]],
      ['with an empty obligationReference', { sourceSystem: SOURCE_SYSTEM, obligationReference: '', kind: 'legacy_pre_redec' }, [{ field: 'obligationReference', reason: 'must_not_be_empty' }]],
      ['with an unknown field', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'legacy_pre_redec', customerId: randomUUID() }, [{ field: 'customerId', reason: 'unknown_property' }]],
      ['with a redecConsentId that is not a consent id', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1' }, [{ field: 'redecConsentId', reason: 'is_uuid' }]],
      ['without obligationGrantedAt', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'legacy_pre_redec' }, [{ field: 'obligationGrantedAt', reason: 'required' }]],
      ['with an obligationGrantedAt that is not epoch ms', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'legacy_pre_redec', obligationGrantedAt: '2026-11-23' }, [{ field: 'obligationGrantedAt', reason: 'must_be_integer' }]],
      ['of kind consent without redecConsentId', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'consent', obligationGrantedAt: Date.now() }, [{ field: 'redecConsentId', reason: 'required' }]],
      ['of kind legacy_pre_redec with a redecConsentId', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'legacy_pre_redec', redecConsentId: randomUUID(), obligationGrantedAt: Date.now() }, [{ field: 'redecConsentId', reason: 'not_for_binding_kind' }]],
      ['of kind no_applicable_consent with a redecConsentId', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', kind: 'no_applicable_consent', redecConsentId: randomUUID(), obligationGrantedAt: Date.now() }, [{ field: 'redecConsentId', reason: 'not_for_binding_kind' }]],
    ])('a binding %s is 400 VALIDATION_ERROR naming the field, and records no binding', async (_, body, errors) => {
      expectValidationError(await recordsNoFact(api, () => bind(body)), errors);
    });

    it('a refused binding releases its Idempotency-Key for the corrected request', async () => {
      const obligationReference = freshReference();
      const idempotencyKey = randomUUID();
      expectValidationError(await bind({ ...asKind('legacy_pre_redec', obligationReference), extra: true }, { idempotencyKey }), [{ field: 'extra', reason: 'unknown_property' }]);
      expect((await bind(asKind('legacy_pre_redec', obligationReference), { idempotencyKey })).status).toBe(201);
    });

    it.each([
      ['without sourceSystem', { obligationReference: 'op-1' }, [{ field: 'sourceSystem', reason: 'required' }]],
      ['without obligationReference', { sourceSystem: SOURCE_SYSTEM }, [{ field: 'obligationReference', reason: 'required' }]],
      ['with an empty sourceSystem', { sourceSystem: '', obligationReference: 'op-1' }, [{ field: 'sourceSystem', reason: 'must_not_be_empty' }]],
      ['with an unknown parameter', { sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1', customerId: randomUUID() }, [{ field: 'customerId', reason: 'unknown_property' }]],
    ])('a lookup %s is 400 VALIDATION_ERROR naming the parameter', async (_, query, errors) => {
      expectValidationError(await consentCode(query), errors);
    });
  });

  describe('scopes and Idempotency-Key', () => {
    it('binding needs consent:runtime and the lookup consent:read: 403 INSUFFICIENT_SCOPE, recording nothing', async () => {
      const obligationReference = freshReference();
      expectProblem(await recordsNothing(() => bind(toConsent(consentA, obligationReference), { apiKey: withoutRuntime })), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await codeOf(obligationReference, SOURCE_SYSTEM, withoutRead), 403, 'INSUFFICIENT_SCOPE');
      expect((await bind(toConsent(consentA, obligationReference), { apiKey: withoutRead })).status).toBe(201);
      expect((await codeOf(obligationReference, SOURCE_SYSTEM, withoutRuntime)).body).toMatchObject({ result: 'consent_code' });
    });

    it('without a key both are 401 UNAUTHENTICATED', async () => {
      expectProblem(await recordsNothing(() => api.http.post('/v1/redec/reportable-obligations/bindings').set('Idempotency-Key', randomUUID()).send(asKind('legacy_pre_redec', 'op-1'))), 401, 'UNAUTHENTICATED');
      expectProblem(await api.http.get('/v1/redec/reportable-obligations/consent-code').query({ sourceSystem: SOURCE_SYSTEM, obligationReference: 'op-1' }), 401, 'UNAUTHENTICATED');
    });

    it('a binding without Idempotency-Key is 400 IDEMPOTENCY_KEY_REQUIRED and records nothing', async () => {
      const obligationReference = freshReference();
      expectProblem(await recordsNothing(() => bind(toConsent(consentA, obligationReference), { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'unresolved' });
    });

    it('an exact retry with the same key gets the first answer; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const obligationReference = freshReference();
      const idempotencyKey = randomUUID();
      const first = await bind(toConsent(consentA, obligationReference), { idempotencyKey });
      const retry = await recordsNothing(() => bind(toConsent(consentA, obligationReference), { idempotencyKey }));
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);

      const reused = await recordsNothing(() => bind(toConsent(consentB, obligationReference), { idempotencyKey }));
      expectProblem(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await obligationFacts(obligationReference)).toHaveLength(1);
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consentA.internalConsentCode });
    });
  });

  it('takes redecConsentId null as not sent, and a consent id in upper case as that consent', async () => {
    const obligationReference = freshReference();
    expect((await bind({ ...asKind('no_applicable_consent', obligationReference), redecConsentId: null })).status).toBe(201);
    const upper = await bind({ ...toConsent(consentA, freshReference()), redecConsentId: consentA.redecConsentId.toUpperCase() });
    expect(upper.status).toBe(201);
    expect(upper.body).toMatchObject({ redecConsentId: consentA.redecConsentId, internalConsentCode: consentA.internalConsentCode });
  });

  it('bindings survive a rebuild of the read model: the same answers from the facts alone', async () => {
    const resolved = freshReference();
    const ambiguous = freshReference();
    await bind(toConsent(consentA, resolved));
    await bind(asKind('legacy_pre_redec', ambiguous));
    await bind(asKind('no_applicable_consent', ambiguous));
    const runner = api.app.get(ProjectionRunner);
    const digest = await runner.digest('redec-obligations');

    await runner.rebuild(['redec-obligations']);

    expect(await runner.digest('redec-obligations')).toBe(digest);
    expect((await codeOf(resolved)).body).toMatchObject({ result: 'consent_code', consentCode: consentA.internalConsentCode });
    expect((await codeOf(ambiguous)).body).toMatchObject({ result: 'ambiguous', consentCode: null });
  });

  // Issue 12: a binding never hands the bank a code the consent does not cover.
  describe('a consent binding needs the consent to have enabled access when the obligation was granted (decision 0023)', () => {
    const notValid = 'redec_consent_not_valid_at_obligation_grant';
    const revoke = (consent: GrantedConsent, occurredAt: number) =>
      api.http
        .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
        .set({ ...auth(key), 'Idempotency-Key': randomUUID() })
        .send({ channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });

    it('refuses an obligation granted before the consent, or at or after its revocation, recording nothing; one granted in between is bound', async () => {
      const consent = await redecConsents(api, key).grant();
      const at = (obligationGrantedAt: number) => ({ ...toConsent(consent, freshReference()), obligationGrantedAt });
      expectProblem(await recordsNoFact(api, () => bind(at(consent.grantedAt - 1))), 422, notValid);
      const revokedAt = Date.now() - 1_000;
      expect((await revoke(consent, revokedAt)).status).toBe(201);
      for (const obligationGrantedAt of [revokedAt, revokedAt + 500]) {
        const refused = await recordsNoFact(api, () => bind(at(obligationGrantedAt)));
        expectProblem(refused, 422, notValid);
      }
      const before = at(revokedAt - 1);
      expect((await bind(before)).status).toBe(201);
      expect((await codeOf(before.obligationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consent.internalConsentCode });
    });

    it('binds, after a kept revocation, only the exact obligation an extension covers', async () => {
      const consent = await redecConsents(api, key).grant();
      const reference = freshReference();
      const extended = await api.http
        .post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions`)
        .set({ ...auth(key), 'Idempotency-Key': randomUUID() })
        .send({ customerTenantId: consent.customerId, objectiveCode: '02', creditOperationReference: reference, creditGrantedAt: consent.grantedAt + 1_000, sourceSystem: SOURCE_SYSTEM });
      expect(extended.status).toBe(201);
      expect((await revoke(consent, Date.now() - 1_000)).body).toMatchObject({ effective: false });
      const now = Date.now();
      expect((await bind({ ...toConsent(consent, reference), obligationGrantedAt: now })).status).toBe(201);
      expectProblem(await recordsNoFact(api, () => bind({ ...toConsent(consent, freshReference()), obligationGrantedAt: now })), 422, notValid);
    });

    it("refuses an obligationGrantedAt later than the receipt beyond the profile's caller clock skew", async () => {
      const late = await recordsNoFact(api, () => bind({ ...asKind('legacy_pre_redec', freshReference()), obligationGrantedAt: Date.now() + 10 * 60_000 }));
      expectValidationError(late, [{ field: 'obligationGrantedAt', reason: 'obligation_granted_after_receipt' }]);
    });
  });

  describe('annulling a binding recorded by mistake (consent:admin, append-only)', () => {
    const annul = (bindingId: string, options: { apiKey?: string; idempotencyKey?: string | null } = {}) => {
      const post = api.http.post(`/v1/redec/reportable-obligations/bindings/${bindingId}/annul`).set(auth(options.apiKey ?? key));
      const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
      return (idempotencyKey === null ? post : post.set('Idempotency-Key', idempotencyKey)).send({ reason: 'bound by mistake', sourceReference: 'ticket-7' });
    };

    it('leaves the lookup as if the binding had not been recorded, keeps the fact, and is answered once', async () => {
      const obligationReference = freshReference();
      const legacy = await bind(asKind('legacy_pre_redec', obligationReference));
      await bind(toConsent(consentA, obligationReference));
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'ambiguous' });

      expectProblem(await recordsNothing(() => annul(legacy.body.bindingId, { apiKey: withoutAdmin })), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await recordsNothing(() => annul(legacy.body.bindingId, { idempotencyKey: null })), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      const annulled = await annul(legacy.body.bindingId);
      expect(annulled.status).toBe(200);
      expect(annulled.body).toEqual({
        bindingId: legacy.body.bindingId,
        sourceSystem: SOURCE_SYSTEM,
        obligationReference,
        redecConsentId: null,
        reason: 'bound by mistake',
        sourceReference: 'ticket-7',
        annulledAt: expect.any(Number),
      });
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'consent_code', consentCode: consentA.internalConsentCode });
      expect((await obligationFacts(obligationReference)).map((e) => e.type)).toEqual(['ObligationBound', 'ObligationBound', 'ObligationBindingAnnulled']);

      expectProblem(await recordsNoFact(api, () => annul(legacy.body.bindingId)), 409, 'redec_binding_already_annulled');
      expectProblem(await recordsNoFact(api, () => annul(randomUUID())), 404, 'NOT_FOUND');
      expectProblem(await recordsNoFact(api, () => annul('not-a-binding')), 404, 'NOT_FOUND');
      // Another tenant's binding is not found here.
      const theirs = await bind(asKind('legacy_pre_redec', freshReference()), { apiKey: other.key });
      expectProblem(await recordsNoFact(api, () => annul(theirs.body.bindingId)), 404, 'NOT_FOUND');
    });

    it('leaves an obligation whose only binding was annulled unresolved, and takes the same binding again as new', async () => {
      const obligationReference = freshReference();
      const first = await bind(toConsent(consentA, obligationReference));
      await annul(first.body.bindingId);
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'unresolved', consentCode: null });
      const again = await bind(toConsent(consentA, obligationReference));
      expect(again.status).toBe(201);
      expect(again.body.bindingId).not.toBe(first.body.bindingId);
      expect((await codeOf(obligationReference)).body).toMatchObject({ result: 'consent_code' });
    });
  });

  // Last: it restarts the service with its clock 40 days ahead, past every consent's initial window.
  describe('after the initial window', () => {
    it('refuses to bind an obligation granted after the consent expired, and still binds one granted while it was valid', async () => {
      const consent = await redecConsents(api, key).grant();
      const grantedWhileValid = Date.now();
      await api.close();
      api = await startApiApp(environment, { ...NO_BACKGROUND_WRITES, LEDGER_CLOCK_OFFSET_MS: String(40 * 86_400_000) });
      const shiftedNow = Date.now() + 40 * 86_400_000;
      expect((await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth(key))).body.status).toBe('expired');
      const expired = await recordsNoFact(api, () => bind({ ...toConsent(consent, freshReference()), obligationGrantedAt: shiftedNow - 60_000 }));
      expectProblem(expired, 422, 'redec_consent_not_valid_at_obligation_grant');
      expect((await bind({ ...toConsent(consent, freshReference()), obligationGrantedAt: grantedWhileValid })).status).toBe(201);
    });
  });
});
