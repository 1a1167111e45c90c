import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { BASELINE_PROFILE, DENY_REASON_CODES, DenyReasonCode, redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// docs/reference/accesses.md, docs/reference/states.md, "Access", and
// docs/reference/authentication.md, "Scopes": access authorization and confirmation through
// the real HTTP stack, SQLite store and Redis. Without the certificate worker
// nothing else writes (so a refused request can be checked to record nothing)
// and every artifact stays `pending`, which shows the decision does not wait
// for it.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
/** A Regulatory Profile like the baseline whose authorizations live one second, so that an expiry is seen inside a test. */
const SHORT_LIVED = { ...BASELINE_PROFILE, id: 'short-lived-authorizations', authorizationTtlMs: 1_000 };

const MINUTE = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SETUP_SCOPES: Scope[] = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'];
/** What the consents of redecConsents() grant: scope `redec-debt` for `redec.consolidated_debt_record`, objectives 02 and 03, obligations of `core-loans`. */
const GRANTED = { scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record', objectiveCode: '02', obligationSourceSystem: 'core-loans' };
/**
 * Covered by test/redec-expiry.e2e-spec.ts: a window of 15 banking days cannot be outlived inside one run without shifting the service clock;
 * and by test/processing-blocks.e2e-spec.ts: a block is a rights request of the data subject, filed and approved first.
 */
const COVERED_ELSEWHERE: DenyReasonCode[] = ['redec_initial_window_expired', 'data_subject_processing_blocked'];

type Response = { status: number; headers: Record<string, string>; body: any; text: string };

describe('REDEC access authorization and confirmation', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let writerOnly: string;
  let readerOnly: string;
  let runtimeOnly: string;
  let consents: ReturnType<typeof redecConsents>;
  /** Another tenant, with a consent of its own. */
  let other: { key: string; consent: GrantedConsent };

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });

  /** A complete initial_window request for a granted scope, data category and objective, under a fresh access reference. */
  const initialWindow = (redecConsentId: string, overrides: Record<string, unknown> = {}) => ({
    authorizationBasis: 'consent',
    consentAuthorizationMode: 'initial_window',
    redecConsentId,
    dataCategoryCode: GRANTED.dataCategoryCode,
    scopeId: GRANTED.scopeId,
    objectiveCode: GRANTED.objectiveCode,
    reportingObligation: { status: 'none', sourceSystem: GRANTED.obligationSourceSystem, sourceReference: `solicitud-${randomUUID()}`, assertedAt: Date.now() - 1_000 },
    sourceSystem: 'originacion',
    sourceReference: `acceso-${randomUUID()}`,
    ...overrides,
  });
  /** A credit_lifecycle_extension request to manage the obligation `creditOperationReference` of `core-loans`. */
  const manageObligation = (redecConsentId: string, creditOperationReference: string, overrides: Record<string, unknown> = {}) =>
    initialWindow(redecConsentId, {
      consentAuthorizationMode: 'credit_lifecycle_extension',
      accessPurpose: 'manage_existing_obligation',
      reportingObligation: { status: 'granted', sourceSystem: GRANTED.obligationSourceSystem, sourceReference: creditOperationReference, assertedAt: Date.now() - 1_000 },
      ...overrides,
    });

  const authorize = (body: unknown, apiKey = key): Promise<Response> => api.http.post('/v1/redec/accesses/authorize').set(auth(apiKey)).send(body as object);
  /** POSTs a confirmation, with an Idempotency-Key only when one is given. */
  const confirm = (redecAccessId: string, body: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}): Promise<Response> => {
    const call = api.http.post(`/v1/redec/accesses/${redecAccessId}/confirm`).set(auth(options.apiKey));
    return (options.idempotencyKey === undefined ? call : call.set('Idempotency-Key', options.idempotencyKey)).send(body as object);
  };
  const readConsent = (redecConsentId: string) => api.http.get(`/v1/redec/consents/${redecConsentId}`).set(auth());

  async function revoke(consent: GrantedConsent): Promise<void> {
    const revoked = await api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({ channel: 'digital', occurredAt: Date.now() - 1_000, sourceType: 'direct', identityAssurance: 'client_authenticated' });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({ effective: true, consentStatus: 'revoked' });
  }

  /** Registers an extension for a credit granted a second after the consent, under a fresh obligation reference unless one is given. */
  async function registerExtension(consent: GrantedConsent, objectiveCode = '02', creditOperationReference = `op-${randomUUID()}`) {
    const registered = await api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions`)
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({
        customerTenantId: consent.customerId,
        objectiveCode,
        creditOperationReference,
        creditGrantedAt: consent.grantedAt + 1_000,
        sourceSystem: GRANTED.obligationSourceSystem,
        sourceReference: `credito-${randomUUID()}`,
      });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ creditOperationReference, status: 'active', consentStatus: 'extended' });
    return { creditExtensionId: registered.body.creditExtensionId as string, creditOperationReference };
  }

  /** The facts recorded for one access request of this tenant. */
  const accessFacts = async (redecAccessId: string, ofTenant = tenantId) =>
    (await api.store.readStream(redecStreams.access(ofTenant, redecAccessId))).map((e) => ({ type: e.type, data: e.data as any }));

  /** A new decision (201, `replayed: false`) with this status, as JSON and never as a problem document: a denial is a business decision. */
  function expectNewDecision(response: Response, request: { redecConsentId: string }, status: 'authorized' | 'denied', denyReasonCode?: DenyReasonCode) {
    expect({ status: response.status, body: response.body }).toEqual({
      status: 201,
      body: {
        decision: expect.objectContaining({ redecAccessId: expect.stringMatching(UUID), status, redecConsentId: request.redecConsentId, decidedAt: expect.any(Number) }),
        replayed: false,
      },
    });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    if (denyReasonCode === undefined) expect(response.body.decision).not.toHaveProperty('denyReasonCode');
    else expect(response.body.decision.denyReasonCode).toBe(denyReasonCode);
  }

  /** An authorized access of a fresh consent, to be confirmed. */
  async function authorizedAccess(): Promise<{ redecAccessId: string; decision: any }> {
    const consent = await consents.grant();
    const response = await authorize(initialWindow(consent.redecConsentId));
    expectNewDecision(response, consent, 'authorized');
    return { redecAccessId: response.body.decision.redecAccessId, decision: response.body.decision };
  }

  const recordsNothing = <T>(act: () => Promise<T>) => recordsNothingAtAll(api, act);

  beforeAll(async () => {
    environment = testEnvironment();
    const profilesFile = join(environment.dataDir, 'profiles.json');
    writeFileSync(profilesFile, JSON.stringify({ profiles: [SHORT_LIVED] }));
    api = await startApiApp(environment, { ...NO_BACKGROUND_WRITES, LEDGER_PROFILES_FILE: profilesFile });
    ({ tenantId, apiKey: key } = await api.tenantKey(SETUP_SCOPES));
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    const sameTenant = async (scopes: Scope[]) => (await issueApiKey(api.store, { tenantId, scopes }, operator)).apiKey;
    [writerOnly, readerOnly, runtimeOnly] = await Promise.all([sameTenant(['consent:write']), sameTenant(['consent:read']), sameTenant(['consent:runtime'])]);
    consents = redecConsents(api, key);

    const otherKey = (await api.tenantKey(SETUP_SCOPES)).apiKey;
    other = { key: otherKey, consent: await redecConsents(api, otherKey).grant() };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('initial_window for a granted scope, data category and objective is authorized: 201, the decision recorded, no denyReasonCode', async () => {
    const consent = await consents.grant();
    const request = initialWindow(consent.redecConsentId);
    const before = Date.now();
    const response = await authorize(request);
    expectNewDecision(response, consent, 'authorized');
    expect(response.body.decision).toEqual({
      redecAccessId: expect.stringMatching(UUID),
      status: 'authorized',
      redecConsentId: consent.redecConsentId,
      decidedAt: expect.any(Number),
      // The baseline profile's authorizationTtlMs.
      expiresAt: response.body.decision.decidedAt + 10 * MINUTE,
      consentAuthorizationMode: 'initial_window',
      scopeId: request.scopeId,
      dataCategoryCode: request.dataCategoryCode,
      objectiveCode: request.objectiveCode,
      sourceSystem: request.sourceSystem,
      sourceReference: request.sourceReference,
    });
    expect(response.body.decision.decidedAt).toBeGreaterThanOrEqual(before);
    expect(response.body.decision.decidedAt).toBeLessThanOrEqual(Date.now());

    // The answer is a recorded fact, not only a response.
    const facts = await accessFacts(response.body.decision.redecAccessId);
    expect(facts).toEqual([{ type: 'AccessDecided', data: expect.objectContaining({ status: 'authorized', denyReasonCode: null, decidedAt: response.body.decision.decidedAt }) }]);

    // The other objective the consent grants is authorized too.
    expectNewDecision(await authorize(initialWindow(consent.redecConsentId, { objectiveCode: '03' })), consent, 'authorized');
  });

  describe('denies, with 201 and `status: denied`, never an error', () => {
    /**
     * One row per way to reach a deny reason: the request to send, prepared
     * on whatever consent it needs. Each is decided on a consent that would
     * otherwise authorize the same request, unless the row is about the
     * consent itself.
     */
    const DENIALS: Array<[string, DenyReasonCode, () => Promise<{ redecConsentId: string }>]> = [
      ['an unknown consent', 'redec_consent_not_found', async () => initialWindow(randomUUID())],
      [
        "another tenant's consent, which authorizes the same request for that tenant",
        'redec_consent_not_found',
        async () => {
          const request = initialWindow(other.consent.redecConsentId);
          expectNewDecision(await authorize({ ...request, sourceReference: `acceso-${randomUUID()}` }, other.key), other.consent, 'authorized');
          return request;
        },
      ],
      [
        'a consent revoked through POST /revoke',
        'redec_consent_revoked',
        async () => {
          const consent = await consents.grant();
          expectNewDecision(await authorize(initialWindow(consent.redecConsentId)), consent, 'authorized');
          await revoke(consent);
          return initialWindow(consent.redecConsentId);
        },
      ],
      ['a scope the consent does not grant', 'redec_scope_not_granted', async () => initialWindow((await consents.grant()).redecConsentId, { scopeId: 'redec-debt-history' })],
      [
        'a data category the granted scope does not cover',
        'redec_data_category_not_granted',
        async () => initialWindow((await consents.grant()).redecConsentId, { dataCategoryCode: 'redec.consolidated_debt_history' }),
      ],
      ['an objective the consent does not grant', 'redec_objective_not_granted', async () => initialWindow((await consents.grant()).redecConsentId, { objectiveCode: '01' })],
      [
        "an objective the consent grants but the obligation's extension does not",
        'redec_objective_not_granted',
        async () => {
          const consent = await consents.grant();
          const { creditOperationReference } = await registerExtension(consent, '02');
          expectNewDecision(await authorize(manageObligation(consent.redecConsentId, creditOperationReference)), consent, 'authorized');
          return manageObligation(consent.redecConsentId, creditOperationReference, { objectiveCode: '03' });
        },
      ],
      [
        'evaluate_new_credit, even for the obligation of an active extension',
        'redec_credit_extension_purpose_not_obligation_management',
        async () => {
          const consent = await consents.grant();
          const { creditOperationReference } = await registerExtension(consent);
          expectNewDecision(await authorize(manageObligation(consent.redecConsentId, creditOperationReference)), consent, 'authorized');
          return manageObligation(consent.redecConsentId, creditOperationReference, { accessPurpose: 'evaluate_new_credit' });
        },
      ],
      [
        'manage_existing_obligation on a consent without any extension',
        'redec_no_active_extension_for_obligation',
        async () => manageObligation((await consents.grant()).redecConsentId, `op-${randomUUID()}`),
      ],
    ];

    it.each(DENIALS)('%s: %s', async (_title, denyReasonCode, prepare) => {
      const request = await prepare();
      const response = await authorize(request);
      expectNewDecision(response, request, 'denied', denyReasonCode);
      // A denial is an auditable decision: recorded like an authorization.
      const facts = await accessFacts(response.body.decision.redecAccessId);
      expect(facts).toEqual([{ type: 'AccessDecided', data: expect.objectContaining({ status: 'denied', denyReasonCode, redecConsentId: request.redecConsentId }) }]);
    });

    it('the rows above reach every deny reason code but those covered by the expiry and processing-block suites', () => {
      // Fails when a deny reason is added without a test reaching it over HTTP.
      expect([...new Set(DENIALS.map(([, code]) => code)), ...COVERED_ELSEWHERE].sort()).toEqual([...DENY_REASON_CODES].sort());
    });
  });

  it('credit_lifecycle_extension authorizes managing exactly the obligation of an active extension, and no longer once it ended', async () => {
    const consent = await consents.grant();
    const { creditExtensionId, creditOperationReference } = await registerExtension(consent);
    expect((await readConsent(consent.redecConsentId)).body.status).toBe('extended');

    const managedRequest = manageObligation(consent.redecConsentId, creditOperationReference);
    const managed = await authorize(managedRequest);
    expectNewDecision(managed, consent, 'authorized');
    expect(managed.body.decision).toMatchObject({ consentAuthorizationMode: 'credit_lifecycle_extension', accessPurpose: 'manage_existing_obligation' });

    // The extension covers only the exact obligation it arose from: another reference, or the same reference of another source system.
    expectNewDecision(await authorize(manageObligation(consent.redecConsentId, `op-${randomUUID()}`)), consent, 'denied', 'redec_no_active_extension_for_obligation');
    const otherSystem = manageObligation(consent.redecConsentId, creditOperationReference, {
      reportingObligation: { status: 'granted', sourceSystem: 'core-cards', sourceReference: creditOperationReference, assertedAt: Date.now() - 1_000 },
    });
    expectNewDecision(await authorize(otherSystem), consent, 'denied', 'redec_no_active_extension_for_obligation');

    const ended = await api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${creditExtensionId}/end`)
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({ endReason: 'obligation_extinguished' });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ creditExtensionId, status: 'ended', endReason: 'obligation_extinguished' });

    expectNewDecision(await authorize(manageObligation(consent.redecConsentId, creditOperationReference)), consent, 'denied', 'redec_no_active_extension_for_obligation');
    // The earlier request keeps its recorded decision: a request is decided once.
    const replayed = await authorize(managedRequest);
    expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 200, body: { decision: managed.body.decision, replayed: true } });
  });

  describe('a malformed request is 400 VALIDATION_ERROR and records no access fact', () => {
    it('accessPurpose with initial_window, and credit_lifecycle_extension without accessPurpose', async () => {
      const consent = await consents.grant();
      const withPurpose = initialWindow(consent.redecConsentId, { accessPurpose: 'manage_existing_obligation' });
      expectValidationError(await recordsNothing(() => authorize(withPurpose)), [{ field: 'accessPurpose', reason: 'not_with_initial_window' }]);
      // The same is true of the purpose that would be denied: it is still malformed, not a decision.
      expectValidationError(await recordsNothing(() => authorize({ ...withPurpose, accessPurpose: 'evaluate_new_credit' })), [
        { field: 'accessPurpose', reason: 'not_with_initial_window' },
      ]);

      const { creditOperationReference } = await registerExtension(consent);
      const withoutPurpose: Record<string, unknown> = manageObligation(consent.redecConsentId, creditOperationReference);
      delete withoutPurpose.accessPurpose;
      expectValidationError(await recordsNothing(() => authorize(withoutPurpose)), [{ field: 'accessPurpose', reason: 'required' }]);
      expectValidationError(await recordsNothing(() => authorize({ ...withoutPurpose, accessPurpose: 'marketing' })), [{ field: 'accessPurpose', reason: 'invalid_value' }]);

      // The refusals claimed nothing: the same access references are decided afterwards.
      expectNewDecision(await authorize({ ...withoutPurpose, accessPurpose: 'manage_existing_obligation' }), consent, 'authorized');
      const { accessPurpose: _dropped, ...withoutPurposeInitial } = withPurpose as Record<string, unknown>;
      expectNewDecision(await authorize(withoutPurposeInitial), consent, 'authorized');
    });

    it('names every missing field, top-level and inside reportingObligation', async () => {
      const consent = await consents.grant();
      const topLevel = ['authorizationBasis', 'consentAuthorizationMode', 'redecConsentId', 'dataCategoryCode', 'scopeId', 'objectiveCode', 'reportingObligation', 'sourceSystem', 'sourceReference'];
      for (const field of topLevel) {
        const body: Record<string, unknown> = initialWindow(consent.redecConsentId);
        delete body[field];
        const response = await recordsNothing(() => authorize(body));
        expectValidationError(response, [{ field, reason: 'required' }]);
        expect(response.body.errors).toHaveLength(1);
      }
      for (const field of ['status', 'sourceSystem', 'sourceReference', 'assertedAt']) {
        const body = initialWindow(consent.redecConsentId);
        const obligation: Record<string, unknown> = { ...body.reportingObligation };
        delete obligation[field];
        const response = await recordsNothing(() => authorize({ ...body, reportingObligation: obligation }));
        expectValidationError(response, [{ field: `reportingObligation.${field}`, reason: 'required' }]);
        expect(response.body.errors).toHaveLength(1);
      }
      const empty = await recordsNothing(() => authorize({}));
      expectValidationError(empty, topLevel.map((field) => ({ field, reason: 'required' })));
    });

    it('refuses unknown fields (no debt payload, no registry credentials) and an authorizationBasis other than consent', async () => {
      const consent = await consents.grant();
      const unknown: Array<[Record<string, unknown>, string]> = [
        [initialWindow(consent.redecConsentId, { registryCredentials: { user: 'banco', password: 'secreto' } }), 'registryCredentials'],
        [initialWindow(consent.redecConsentId, { debtPayload: { total: 1_000_000 } }), 'debtPayload'],
      ];
      for (const [body, field] of unknown) {
        const response = await recordsNothing(() => authorize(body));
        expectValidationError(response, [{ field, reason: 'unknown_property' }]);
        expect(response.text).not.toContain('secreto');
      }
      const nested = initialWindow(consent.redecConsentId);
      const nestedUnknown = await recordsNothing(() => authorize({ ...nested, reportingObligation: { ...nested.reportingObligation, amount: 1_000_000 } }));
      expectValidationError(nestedUnknown, [{ field: 'reportingObligation.amount', reason: 'unknown_property' }]);

      for (const authorizationBasis of ['legitimate_interest', 'CONSENT', '']) {
        const response = await recordsNothing(() => authorize(initialWindow(consent.redecConsentId, { authorizationBasis })));
        expectValidationError(response, [{ field: 'authorizationBasis', reason: expect.any(String) }]);
      }
      const mode = await recordsNothing(() => authorize(initialWindow(consent.redecConsentId, { consentAuthorizationMode: 'perpetual' })));
      expectValidationError(mode, [{ field: 'consentAuthorizationMode', reason: 'invalid_value' }]);
    });

    it('refuses reportingObligation.assertedAt more than 5 minutes after the receipt; within the tolerance it is decided', async () => {
      const consent = await consents.grant();
      const at = (assertedAt: number) => {
        const body = initialWindow(consent.redecConsentId);
        return { ...body, reportingObligation: { ...body.reportingObligation, assertedAt } };
      };
      const late = await recordsNothing(() => authorize(at(Date.now() + 6 * MINUTE)));
      expectValidationError(late, [{ field: 'reportingObligation.assertedAt', reason: 'asserted_at_after_receipt' }], 'asserted_at_after_receipt');
      // A bank clock slightly ahead of ours is not a false assertion.
      expectNewDecision(await authorize(at(Date.now() + 4 * MINUTE)), consent, 'authorized');
    });
  });

  it('the same request again answers the recorded decision (200, replayed), even after a revocation; another body for the pair is 409', async () => {
    const consent = await consents.grant();
    const request = initialWindow(consent.redecConsentId);
    const first = await authorize(request);
    expectNewDecision(first, consent, 'authorized');

    const again = await recordsNothing(() => authorize(request));
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { decision: first.body.decision, replayed: true } });

    await revoke(consent);
    // A new request is decided on the consent as it stands now ...
    expectNewDecision(await authorize(initialWindow(consent.redecConsentId)), consent, 'denied', 'redec_consent_revoked');
    // ... while the earlier request keeps its recorded decision.
    const afterRevocation = await recordsNothing(() => authorize(request));
    expect({ status: afterRevocation.status, body: afterRevocation.body }).toEqual({ status: 200, body: { decision: first.body.decision, replayed: true } });

    for (const changed of [{ objectiveCode: '03' }, { reportingObligation: { ...request.reportingObligation, assertedAt: request.reportingObligation.assertedAt + 1 } }]) {
      const conflicting = await recordsNothing(() => authorize({ ...request, ...changed }));
      expectProblem(conflicting, 409, 'redec_access_request_conflict');
    }

    // The pair identifies the request: another sourceReference, or the same one from another system, is a new access.
    const newReference = await authorize({ ...request, sourceReference: `acceso-${randomUUID()}` });
    const newSystem = await authorize({ ...request, sourceSystem: 'cobranza' });
    for (const response of [newReference, newSystem]) {
      expectNewDecision(response, consent, 'denied', 'redec_consent_revoked');
      expect(response.body.decision.redecAccessId).not.toBe(first.body.decision.redecAccessId);
    }
    expect(newReference.body.decision.redecAccessId).not.toBe(newSystem.body.decision.redecAccessId);
  });

  it('does not depend on artifact readiness: a consent whose artifact is pending is authorized', async () => {
    const consent = await consents.grant();
    const artifact = () => api.http.get(`/v1/redec/consents/${consent.redecConsentId}/artifact`).set(auth());
    expect((await readConsent(consent.redecConsentId)).body).toMatchObject({ status: 'granted', artifactStatus: 'pending' });
    expect((await artifact()).body.status).toBe('pending');

    expectNewDecision(await authorize(initialWindow(consent.redecConsentId)), consent, 'authorized');
    // The decision did not wait for, nor produce, the artifact.
    expect((await readConsent(consent.redecConsentId)).body.artifactStatus).toBe('pending');
    expect((await artifact()).body.status).toBe('pending');
  });

  it('10 identical requests in parallel are decided once: one 201, nine replays, one decision recorded', async () => {
    const consent = await consents.grant();
    const request = initialWindow(consent.redecConsentId);
    // Sent over ten connections opened beforehand, so the ten requests reach the service in the same
    // turn of its event loop and are decided before the first decision is committed: the race, not
    // ten requests served one after the other. (supertest connects anew for each request.)
    const server = api.app.getHttpServer();
    if (!server.address()) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await Promise.all(Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.arrayBuffer())));
    const responses = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const response = await fetch(`http://127.0.0.1:${port}/v1/redec/accesses/authorize`, {
          method: 'POST',
          headers: { ...auth(), 'content-type': 'application/json' },
          body: JSON.stringify(request),
        });
        return { status: response.status, body: (await response.json()) as any };
      }),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(responses.filter((r) => r.body.replayed === false)).toHaveLength(1);
    const [decision] = responses.map((r) => r.body.decision);
    expect(decision).toMatchObject({ status: 'authorized', redecConsentId: consent.redecConsentId });
    for (const response of responses) {
      expect(response.body.decision).toEqual(decision);
      expect(response.body.replayed).toBe(response.status === 200);
    }
    expect((await accessFacts(decision.redecAccessId)).map((f) => f.type)).toEqual(['AccessDecided']);
  });

  describe('confirm: exactly one outcome kind, once, for an authorized access', () => {
    it('`accessed` with accessedAt is 200 with status accessed, the outcome and the authorization confirmed', async () => {
      const { redecAccessId, decision } = await authorizedAccess();
      const accessedAt = Date.now();
      const response = await confirm(redecAccessId, { outcome: { kind: 'accessed', accessedAt } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ redecAccessId, status: 'accessed', outcome: { kind: 'accessed', accessedAt }, confirmedAt: expect.any(Number), decision });
      expect(response.body.confirmedAt).toBeGreaterThanOrEqual(accessedAt);
      expect((await accessFacts(redecAccessId)).map((f) => f.type)).toEqual(['AccessDecided', 'AccessConfirmed']);
    });

    it.each(['failed', 'cancelled'])('`%s` is 200 with that status and nothing else in the outcome', async (kind) => {
      const { redecAccessId, decision } = await authorizedAccess();
      const response = await confirm(redecAccessId, { outcome: { kind } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ redecAccessId, status: kind, outcome: { kind }, confirmedAt: expect.any(Number), decision });
    });

    it('refuses anything but exactly one outcome kind with its own fields, recording nothing', async () => {
      const { redecAccessId } = await authorizedAccess();
      const refused: Array<[unknown, { field: string; reason: string }]> = [
        [{ outcome: { kind: 'accessed' } }, { field: 'outcome.accessedAt', reason: 'required' }],
        [{ outcome: { kind: 'failed', accessedAt: Date.now() } }, { field: 'outcome.accessedAt', reason: 'only_with_accessed' }],
        [{ outcome: { kind: 'cancelled', accessedAt: Date.now() } }, { field: 'outcome.accessedAt', reason: 'only_with_accessed' }],
        [{ outcome: { kind: ['failed', 'cancelled'] } }, { field: 'outcome.kind', reason: expect.any(String) }],
        [{ outcome: [{ kind: 'accessed', accessedAt: Date.now() }, { kind: 'failed' }] }, { field: 'outcome', reason: expect.any(String) }],
        [{ outcome: { kind: 'timeout' } }, { field: 'outcome.kind', reason: 'invalid_value' }],
        [{ outcome: {} }, { field: 'outcome.kind', reason: 'required' }],
        [{}, { field: 'outcome', reason: 'required' }],
        [{ outcome: { kind: 'failed' }, debtPayload: {} }, { field: 'debtPayload', reason: 'unknown_property' }],
      ];
      for (const [body, error] of refused) {
        expectValidationError(await recordsNothing(() => confirm(redecAccessId, body)), [error]);
      }
      // accessedAt bounded by the authorization and the receipt, with 5 minutes of tolerance.
      const early = await recordsNothing(() => confirm(redecAccessId, { outcome: { kind: 'accessed', accessedAt: Date.now() - 10 * MINUTE } }));
      expectValidationError(early, [{ field: 'outcome.accessedAt', reason: 'accessed_at_before_authorization' }]);
      const late = await recordsNothing(() => confirm(redecAccessId, { outcome: { kind: 'accessed', accessedAt: Date.now() + 10 * MINUTE } }));
      expectValidationError(late, [{ field: 'outcome.accessedAt', reason: 'accessed_at_after_receipt' }]);

      // None of them confirmed anything: the access is still open to one confirmation.
      expect((await confirm(redecAccessId, { outcome: { kind: 'failed' } })).status).toBe(200);
    });

    it('of a denied access is 409 redec_access_not_authorized', async () => {
      const consent = await consents.grant();
      const denied = await authorize(initialWindow(consent.redecConsentId, { objectiveCode: '01' }));
      expectNewDecision(denied, consent, 'denied', 'redec_objective_not_granted');
      for (const outcome of [{ kind: 'accessed', accessedAt: Date.now() }, { kind: 'cancelled' }]) {
        expectProblem(await recordsNothing(() => confirm(denied.body.decision.redecAccessId, { outcome })), 409, 'redec_access_not_authorized');
      }
    });

    it('a second confirmation is 409 redec_access_already_confirmed, whatever its outcome', async () => {
      const { redecAccessId } = await authorizedAccess();
      const accessedAt = Date.now();
      expect((await confirm(redecAccessId, { outcome: { kind: 'accessed', accessedAt } })).status).toBe(200);
      for (const outcome of [{ kind: 'accessed', accessedAt }, { kind: 'failed' }]) {
        expectProblem(await recordsNothing(() => confirm(redecAccessId, { outcome })), 409, 'redec_access_already_confirmed');
      }
    });

    it("an unknown access id and another tenant's access id are 404 NOT_FOUND", async () => {
      for (const redecAccessId of [randomUUID(), 'not-an-access-id']) {
        expectProblem(await recordsNothing(() => confirm(redecAccessId, { outcome: { kind: 'failed' } })), 404, 'NOT_FOUND');
      }
      const theirs = await authorize(initialWindow(other.consent.redecConsentId), other.key);
      expectNewDecision(theirs, other.consent, 'authorized');
      const theirAccessId = theirs.body.decision.redecAccessId;
      expectProblem(await recordsNothing(() => confirm(theirAccessId, { outcome: { kind: 'cancelled' } })), 404, 'NOT_FOUND');
      // Their access was untouched: its own tenant confirms it once.
      expect((await confirm(theirAccessId, { outcome: { kind: 'failed' } }, { apiKey: other.key })).body).toMatchObject({ redecAccessId: theirAccessId, status: 'failed' });
    });

    it('with an Idempotency-Key, an exact retry answers the first confirmation; the key on another outcome is 422', async () => {
      const { redecAccessId } = await authorizedAccess();
      const idempotencyKey = randomUUID();
      const body = { outcome: { kind: 'accessed', accessedAt: Date.now() } };
      const first = await confirm(redecAccessId, body, { idempotencyKey });
      expect(first.status).toBe(200);
      const retry = await recordsNoFact(api, () => confirm(redecAccessId, body, { idempotencyKey }));
      expect(retry.status).toBe(200);
      expect(retry.text).toBe(first.text);
      expectProblem(await recordsNoFact(api, () => confirm(redecAccessId, { outcome: { kind: 'failed' } }, { idempotencyKey })), 422, 'IDEMPOTENCY_KEY_REUSED');
      // Without the key the same outcome is a second confirmation.
      expectProblem(await recordsNothing(() => confirm(redecAccessId, body)), 409, 'redec_access_already_confirmed');
      expect((await accessFacts(redecAccessId)).map((f) => f.type)).toEqual(['AccessDecided', 'AccessConfirmed']);
    });
  });

  it('authorize and confirm need consent:runtime: a key with only consent:write or only consent:read is 403 INSUFFICIENT_SCOPE', async () => {
    const consent = await consents.grant();
    const request = initialWindow(consent.redecConsentId);
    const { redecAccessId } = await authorizedAccess();
    for (const apiKey of [writerOnly, readerOnly]) {
      expectProblem(await recordsNothing(() => authorize(request, apiKey)), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await recordsNothing(() => confirm(redecAccessId, { outcome: { kind: 'failed' } }, { apiKey })), 403, 'INSUFFICIENT_SCOPE');
    }
    // consent:runtime alone is enough for both.
    expectNewDecision(await authorize(request, runtimeOnly), consent, 'authorized');
    expect((await confirm(redecAccessId, { outcome: { kind: 'cancelled' } }, { apiKey: runtimeOnly })).status).toBe(200);
  });

  // Issue 12: an authorization is used at once or not at all, and a revocation, kept or not, stops the initial window.
  describe('regulatory invariants (decision 0023)', () => {
    const accessed = (accessedAt: number) => ({ outcome: { kind: 'accessed', accessedAt } });
    async function revokeAt(consent: GrantedConsent, occurredAt: number) {
      const revoked = await api.http
        .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
        .set({ ...auth(), 'Idempotency-Key': randomUUID() })
        .send({ channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });
      expect(revoked.status).toBe(201);
      return revoked.body;
    }

    it('a revocation kept without effect denies every initial_window access from revokedAt, while the extension still covers its exact obligation', async () => {
      const consent = await consents.grant();
      const { creditOperationReference } = await registerExtension(consent);
      expect(await revokeAt(consent, Date.now() - 1_000)).toMatchObject({ effective: false, consentStatus: 'extended' });
      expectNewDecision(await authorize(initialWindow(consent.redecConsentId)), consent, 'denied', 'redec_consent_revoked');
      expectNewDecision(await authorize(manageObligation(consent.redecConsentId, creditOperationReference)), consent, 'authorized');
      expectNewDecision(await authorize(manageObligation(consent.redecConsentId, `op-${randomUUID()}`)), consent, 'denied', 'redec_no_active_extension_for_obligation');
      expectNewDecision(
        await authorize(manageObligation(consent.redecConsentId, creditOperationReference, { accessPurpose: 'evaluate_new_credit' })),
        consent,
        'denied',
        'redec_credit_extension_purpose_not_obligation_management',
      );
    });

    it('confirming `accessed` after the consent stopped enabling the access is 409 redec_authorization_expired; failed and cancelled are taken', async () => {
      const consent = await consents.grant();
      const decided = await authorize(initialWindow(consent.redecConsentId));
      expectNewDecision(decided, consent, 'authorized');
      const { redecAccessId, decidedAt } = decided.body.decision;
      // The revocation reaches the ledger after the decision, back-dated to a moment after it.
      const revokedAt = decidedAt + 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await revokeAt(consent, revokedAt);
      expectProblem(await recordsNothing(() => confirm(redecAccessId, accessed(revokedAt + 1))), 409, 'redec_authorization_expired');
      const before = await confirm(redecAccessId, accessed(decidedAt));
      expect(before.status).toBe(200);

      const second = await authorize(initialWindow(consent.redecConsentId));
      expectNewDecision(second, consent, 'denied', 'redec_consent_revoked');
      const other = await authorizedAccess();
      expect((await confirm(other.redecAccessId, { outcome: { kind: 'failed' } })).status).toBe(200);
    });

    it("confirming `accessed` after the obligation of a lifecycle access ended is 409", async () => {
      const consent = await consents.grant();
      const { creditExtensionId, creditOperationReference } = await registerExtension(consent);
      const decided = await authorize(manageObligation(consent.redecConsentId, creditOperationReference));
      expectNewDecision(decided, consent, 'authorized');
      const { redecAccessId, decidedAt } = decided.body.decision;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const ended = await api.http
        .post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${creditExtensionId}/end`)
        .set({ ...auth(), 'Idempotency-Key': randomUUID() })
        .send({ endReason: 'obligation_extinguished', occurredAt: decidedAt + 1 });
      expect(ended.status).toBe(200);
      expectProblem(await recordsNothing(() => confirm(redecAccessId, accessed(decidedAt + 2))), 409, 'redec_authorization_expired');
      expect((await confirm(redecAccessId, { outcome: { kind: 'cancelled' } })).status).toBe(200);
    });

    it("an authorization expires after the profile's authorizationTtlMs: `accessed` later than expiresAt is 409", async () => {
      const shortLived = redecConsents(api, key, { regulatoryProfile: SHORT_LIVED.id });
      const consent = await shortLived.grant();
      const first = await authorize(initialWindow(consent.redecConsentId));
      expectNewDecision(first, consent, 'authorized');
      const { redecAccessId, decidedAt, expiresAt } = first.body.decision;
      expect(expiresAt).toBe(decidedAt + SHORT_LIVED.authorizationTtlMs);
      expectProblem(await recordsNothing(() => confirm(redecAccessId, accessed(expiresAt + 1))), 409, 'redec_authorization_expired');
      expect((await confirm(redecAccessId, accessed(expiresAt))).body).toMatchObject({ status: 'accessed' });
    });
  });
});
