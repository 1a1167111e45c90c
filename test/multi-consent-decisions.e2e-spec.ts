import { randomUUID } from 'node:crypto';
import { ConsentDecisionRequest, consentDecisionIdFor, consentStreams, recordConsentDecision } from '@ledger/consents';
import { EventStore } from '@ledger/event-store';
import { redecStreams } from '@ledger/redec';
import { EmbedDependencies } from '@ledger/embed';
import { CAPTURE_DEPENDENCIES } from '../apps/api/src/capture-dependencies';
import { IdempotencyEventTypes, hashRequest, idempotencyStreamId } from '../libs/http/src/idempotency/idempotency-record';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { redecConfiguration, rutOf } from './support/redec-fixtures';
import { binaryBody } from './support/text-body';
import { documentText } from '@ledger/artifacts/testing';
import { startWebhookReceiver } from './support/webhook-receiver';

// POST /v1/consent-decisions (docs/reference/consent-decisions.md) through
// the real HTTP stack, SQLite store and Redis: several configurations decided
// in one request, all items or none, and a decision completed by a retry or a
// read when the process stopped between the decision and its consents.

const MINUTE = 60_000;
const PATH = '/v1/consent-decisions';
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;

describe('Multi-Consent decisions: POST /v1/consent-decisions', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let keyId: string;
  let tenantId: string;
  let otherKey: string;
  let redec: string;
  let otherRedec: string;
  let general: string;
  let marketing: string;
  let otherTenantConfiguration: string;

  let nextRutBody = 24_000_000;
  const verifiedCustomer = () => ({
    userReference: `cliente-${randomUUID()}`,
    identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
  });
  const electronic = { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } };
  const post = (body: object, idempotencyKey: string | null = randomUUID(), apiKey = key) => {
    const request = api.http.post(PATH).set('Authorization', `Bearer ${apiKey}`);
    return (idempotencyKey === null ? request : request.set('Idempotency-Key', idempotencyKey)).send(body);
  };
  const get = (path: string, apiKey = key) => api.http.get(path).set('Authorization', `Bearer ${apiKey}`);

  /** A REDEC grant, a general consent and a declined item, for a customer resolved inline. */
  const decisionBody = (overrides: Record<string, unknown> = {}) => ({
    ...verifiedCustomer(),
    occurredAt: Date.now() - 2 * MINUTE,
    sourceSystem: 'web-onboarding',
    sourceReference: `onboarding-${randomUUID()}`,
    items: [
      { configurationId: redec, decision: 'accepted', redec: { evidence: electronic, objectiveCodes: ['02'] } },
      { configurationId: general, decision: 'accepted' },
      { configurationId: marketing, decision: 'declined' },
    ],
    ...overrides,
  });

  async function publish(body: object, apiKey = key): Promise<string> {
    const published = await api.http.post('/v1/configurations').set('Authorization', `Bearer ${apiKey}`).send(body);
    expect(published.status).toBe(201);
    return published.body.configurationId;
  }
  const generalConfiguration = (title: string) => ({ templateKey: `general-${randomUUID()}`, title, text: `${title}: acepto.`, channel: 'digital', captureTiming: 'deferred_external' });

  /** Every fact of these types recorded so far, by stream. */
  async function facts(type: string): Promise<Array<{ streamId: string; data: any }>> {
    return (await api.store.readAll({ after: 0 })).filter((e) => e.type === type).map((e) => ({ streamId: e.streamId, data: e.data }));
  }

  beforeAll(async () => {
    environment = testEnvironment();
    // The certificate and webhook workers run elsewhere, so a refused request can be checked to record nothing;
    // the last describe block runs them.
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    ({ apiKey: key, keyId, tenantId } = await api.tenantKey([...SCOPES]));
    ({ apiKey: otherKey } = await api.tenantKey([...SCOPES]));
    redec = await publish(redecConfiguration({ templateKey: `redec-${randomUUID()}` }));
    otherRedec = await publish(redecConfiguration({ templateKey: `redec-${randomUUID()}`, redec: { objectiveCodes: ['04'] } }));
    general = await publish(generalConfiguration('Términos del servicio'));
    marketing = await publish(generalConfiguration('Comunicaciones comerciales'));
    otherTenantConfiguration = await publish(generalConfiguration('Términos de otro banco'), otherKey);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('records a REDEC grant, a general consent and a declined item in one request, and reads the decision back the same', async () => {
    const body = decisionBody();
    const recorded = await post(body);
    expect(recorded.status).toBe(201);
    expect(recorded.body).toEqual({
      decisionId: expect.any(String),
      customerId: expect.any(String),
      occurredAt: body.occurredAt,
      recordedAt: expect.any(Number),
      embedSessionId: null,
      items: [
        { configurationId: redec, decision: 'accepted', redecConsentId: expect.any(String), internalConsentCode: expect.stringMatching(/^[0-9A-Z]{20}$/) },
        { configurationId: general, decision: 'accepted', consentId: expect.any(String) },
        { configurationId: marketing, decision: 'declined' },
      ],
    });
    const { customerId, items } = recorded.body;

    const consent = await get(`/v1/redec/consents/${items[0].redecConsentId}`);
    expect(consent.status).toBe(200);
    expect(consent.body).toMatchObject({
      internalConsentCode: items[0].internalConsentCode,
      customerId,
      status: 'granted',
      captureTiming: 'deferred_external',
      grantedAt: body.occurredAt,
      objectiveCodes: ['02'],
      artifactStatus: expect.stringMatching(/^(pending|ready)$/),
    });
    expect(consent.body.initialAccessValidUntil).toBeGreaterThan(body.occurredAt + 15 * 86_400_000);
    const evidence = await get(`/v1/redec/consents/${items[0].redecConsentId}/evidence`);
    expect(evidence.body).toMatchObject({ provenance: { sourceSystem: 'web-onboarding', sourceReference: body.sourceReference } });

    const generalConsent = await get(`/v1/consents/${items[1].consentId}`);
    expect(generalConsent.body).toMatchObject({ kind: 'general', status: 'granted', customerId, configurationId: general, grantedAt: body.occurredAt });

    const held = await get(`/v1/customers/${customerId}/consents`);
    expect(held.body.consents.map((c: { kind: string; templateKey: string }) => c.kind).sort()).toEqual(['general', 'redec']);
    const marketingTemplate = (await get(`/v1/configurations/${marketing}`)).body.templateKey;
    const compliance = await get(`/v1/customers/${customerId}/consent-compliance`).query({ templateKey: marketingTemplate });
    expect(compliance.body).toMatchObject({ status: 'non_compliant', acceptedVersion: null });

    const read = await get(`${PATH}/${recorded.body.decisionId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(recorded.body);
  });

  it('answers an exact retry with the first answer and refuses the key with another request', async () => {
    const idempotencyKey = randomUUID();
    const body = decisionBody();
    const first = await post(body, idempotencyKey);
    expect(first.status).toBe(201);
    const again = await recordsNoFact(api, () => post(body, idempotencyKey));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expectProblem(await post({ ...body, sourceReference: 'another' }, idempotencyKey), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(await recordsNoFact(api, () => post(decisionBody(), null)), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expect((await facts('ConsentDecisionRecorded')).filter((f) => f.data.decisionId === first.body.decisionId)).toHaveLength(1);
  });

  it('records nothing when any item is refused, and names the item’s field', async () => {
    const customer = verifiedCustomer();
    const refusals: Array<[Record<string, unknown>, number, string, Array<{ field: string; reason: string }>]> = [
      [
        { items: [{ configurationId: general, decision: 'accepted' }, { configurationId: redec, decision: 'accepted', redec: { evidence: { kind: 'physical_document', digitizedAt: Date.now(), mediaType: 'application/pdf', externalReference: 'dms/1', contentSha256: 'a'.repeat(64) } } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[1].redec.evidence.kind', reason: 'evidence_kind_not_accepted_for_channel' }],
      ],
      [{ items: [{ configurationId: general, decision: 'accepted' }, { configurationId: redec, decision: 'accepted' }] }, 400, 'VALIDATION_ERROR', [{ field: 'items[1].redec', reason: 'required' }]],
      [{ items: [{ configurationId: general, decision: 'accepted', redec: { evidence: electronic } }] }, 400, 'VALIDATION_ERROR', [{ field: 'items[0].redec', reason: 'not_for_general_configuration' }]],
      [{ items: [{ configurationId: redec, decision: 'declined', redec: { evidence: electronic } }] }, 400, 'VALIDATION_ERROR', [{ field: 'items[0].redec', reason: 'not_for_declined_item' }]],
      [
        { items: [{ configurationId: general, decision: 'accepted' }, { configurationId: general, decision: 'declined' }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[1].configurationId', reason: 'duplicate' }],
      ],
      [
        { items: [{ configurationId: redec, decision: 'accepted', redec: { evidence: electronic, scopeIds: ['nope'] } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[0].redec.scopeIds[0]', reason: 'not_in_configuration' }],
      ],
      [
        { items: [{ configurationId: redec, decision: 'accepted', redec: { evidence: { ...electronic, recordedAt: Date.now() } } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[0].redec.evidence.recordedAt', reason: 'not_for_evidence_kind' }],
      ],
      [
        { items: [{ configurationId: redec, decision: 'accepted', redec: { evidence: electronic, internalConsentCode: 'A'.repeat(20) } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[0].redec.internalConsentCode', reason: 'internal_consent_code_is_server_generated' }],
      ],
      [
        { items: [{ configurationId: general, decision: 'accepted' }, { configurationId: redec, decision: 'accepted', redec: { evidence: electronic, representation: { type: 'representative', identifierRutInput: '12.345.678-0', authorityBasis: 'reporter_asserted_representation', authorityReference: 'poder-1', assertedAt: Date.now() } } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'items[1].redec.representation.identifierRutInput', reason: 'invalid_rut' }],
      ],
      [{ occurredAt: Date.now() - 8 * 24 * 60 * MINUTE }, 400, 'VALIDATION_ERROR', [{ field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' }]],
      [{ occurredAt: Date.now() + 10 * MINUTE }, 400, 'VALIDATION_ERROR', [{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }]],
      [{ items: [] }, 400, 'VALIDATION_ERROR', [{ field: 'items', reason: 'too_few_items' }]],
      [{ items: Array.from({ length: 21 }, () => ({ configurationId: randomUUID(), decision: 'declined' })) }, 400, 'VALIDATION_ERROR', [{ field: 'items', reason: 'too_many_items' }]],
      [{ items: [{ configurationId: general, decision: 'maybe' }] }, 400, 'VALIDATION_ERROR', [{ field: 'items[0].decision', reason: 'invalid_value' }]],
      [
        { items: [{ configurationId: general, decision: 'accepted' }, { configurationId: otherTenantConfiguration, decision: 'accepted' }] },
        404,
        'NOT_FOUND',
        [{ field: 'items[1].configurationId', reason: 'NOT_FOUND' }],
      ],
      [
        { identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }], items: [{ configurationId: general, decision: 'accepted' }, { configurationId: redec, decision: 'accepted', redec: { evidence: electronic } }] },
        400,
        'VALIDATION_ERROR',
        [{ field: 'identifiers[0].verification', reason: 'verification_required' }],
      ],
    ];
    for (const [overrides, status, code, errors] of refusals) {
      const refused = await recordsNoFact(api, () => post(decisionBody({ ...customer, ...overrides })));
      expectProblem(refused, status, code);
      expect({ overrides, errors: refused.body.errors }).toEqual({ overrides, errors: expect.arrayContaining(errors) });
    }
    // Nothing was recorded for the customer either: resolving it now creates it.
    const resolved = await api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${key}`).send(customer);
    expect(resolved.body.created).toBe(true);
  });

  it('refuses a configuration captured on the consent page, and another tenant’s decision is not found', async () => {
    const embedded = await publish({ ...redecConfiguration({ templateKey: `redec-${randomUUID()}` }), captureTiming: 'embedded' });
    const refused = await recordsNoFact(api, () => post(decisionBody({ items: [{ configurationId: embedded, decision: 'accepted', redec: { evidence: electronic } }] })));
    expectProblem(refused, 409, 'redec_capture_is_embedded');
    expect(refused.body.errors).toEqual([{ field: 'items[0].configurationId', reason: 'redec_capture_is_embedded' }]);

    const recorded = await post(decisionBody());
    expectProblem(await get(`${PATH}/${recorded.body.decisionId}`, otherKey), 404, 'NOT_FOUND');
    expectProblem(await get(`${PATH}/${randomUUID()}`), 404, 'NOT_FOUND');
    expectProblem(await get(`${PATH}/not-an-id`), 404, 'NOT_FOUND');
  });

  describe('a process that stopped after recording the decision and before its consents', () => {
    /** The store as the stopped process saw it: every append after the decision's fails. */
    function stoppingAfterDecision(store: EventStore): EventStore {
      let decided = false;
      return new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'append') {
            return async (...args: Parameters<EventStore['append']>) => {
              if (decided) throw new Error('the process stopped');
              const appended = await target.append(...args);
              decided = args[0].startsWith('consent-decision-');
              return appended;
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    }

    /** Runs the request's own code up to the decision fact, with the key and request hash the HTTP request would carry. */
    async function stopAfterDecision(body: ReturnType<typeof decisionBody> & { customerId?: string }, idempotencyKey: string, claimedAgoMs?: number): Promise<string> {
      const requestHash = await hashRequest('POST', PATH, body);
      const context = { tenantId, actor: keyId, correlationId: randomUUID(), idempotencyKey, requestHash, now: Date.now() };
      if (claimedAgoMs !== undefined) {
        // The stopped request's claim of its Idempotency-Key, never answered.
        await api.store.append(
          idempotencyStreamId(tenantId, idempotencyKey),
          [{ id: randomUUID(), type: IdempotencyEventTypes.CLAIMED, data: { requestHash, claimedAt: Date.now() - claimedAgoMs }, metadata: { tenantId, correlationId: context.correlationId, actor: keyId, recordedAt: Date.now() - claimedAgoMs, schemaVersion: 1, idempotencyKey, requestHash } }],
          'no_stream',
        );
      }
      const deps = api.app.get<EmbedDependencies>(CAPTURE_DEPENDENCIES);
      const { userReference, identifiers, occurredAt, sourceSystem, sourceReference, items } = body;
      const request: ConsentDecisionRequest = {
        customer: { userReference, identifiers },
        dataSubjectName: null,
        occurredAt,
        sourceSystem,
        sourceReference,
        items: items.map(({ configurationId, decision, redec: grant }) => ({ configurationId, decision: decision as 'accepted' | 'declined', redec: grant && { evidence: grant.evidence as never, objectiveCodes: grant.objectiveCodes } })),
      };
      await expect(recordConsentDecision({ ...deps, store: stoppingAfterDecision(api.store) }, request, context)).rejects.toThrow('the process stopped');
      const decisionId = consentDecisionIdFor(tenantId, idempotencyKey);
      const recorded = await api.store.readStream(consentStreams.decision(tenantId, decisionId));
      expect(recorded.map((e) => e.type)).toEqual(['ConsentDecisionRecorded']);
      return decisionId;
    }

    /** How many grant facts each consent of the answer has: exactly one each once completed. */
    async function grantsOf(items: Array<{ redecConsentId?: string; consentId?: string }>): Promise<number[]> {
      return Promise.all(
        items.map(async ({ redecConsentId, consentId }) => {
          if (redecConsentId) return (await api.store.readStream(redecStreams.consent(tenantId, redecConsentId))).filter((e) => e.type === 'ConsentGranted').length;
          if (consentId) return (await api.store.readStream(consentStreams.generalConsent(tenantId, consentId))).filter((e) => e.type === 'GeneralConsentGranted').length;
          return 0;
        }),
      );
    }

    it('is completed by the exact retry of the request, which takes over the stale claim of its key and answers as the first would have', async () => {
      const idempotencyKey = randomUUID();
      const body = decisionBody();
      const decisionId = await stopAfterDecision(body, idempotencyKey, 31_000);
      expect(await facts('ConsentGranted').then((all) => all.filter((f) => f.data.sourceReference === body.sourceReference))).toEqual([]);

      const retried = await post(body, idempotencyKey);
      expect(retried.status).toBe(201);
      expect(retried.body).toMatchObject({ decisionId, items: [{ redecConsentId: expect.any(String) }, { consentId: expect.any(String) }, { decision: 'declined' }] });
      expect(await grantsOf(retried.body.items)).toEqual([1, 1, 0]);
      expect((await get(`/v1/redec/consents/${retried.body.items[0].redecConsentId}`)).body).toMatchObject({ status: 'granted', grantedAt: body.occurredAt });

      const replayed = await recordsNoFact(api, () => post(body, idempotencyKey));
      expect(replayed.text).toBe(retried.text);
      expect((await recordsNoFact(api, () => get(`${PATH}/${decisionId}`))).body).toEqual(retried.body);
      expect(await grantsOf(retried.body.items)).toEqual([1, 1, 0]);
    });

    it('is completed by reading the decision, and the retry then answers the same consents', async () => {
      const idempotencyKey = randomUUID();
      const body = decisionBody();
      const decisionId = await stopAfterDecision(body, idempotencyKey);

      const read = await get(`${PATH}/${decisionId}`);
      expect(read.status).toBe(200);
      expect(await grantsOf(read.body.items)).toEqual([1, 1, 0]);
      expect((await get(`/v1/consents/${read.body.items[1].consentId}`)).body).toMatchObject({ status: 'granted', grantedAt: body.occurredAt });

      const retried = await recordsNoFact(api, () => post(body, idempotencyKey));
      expect(retried.status).toBe(201);
      expect(retried.body).toEqual(read.body);
      expect(await grantsOf(read.body.items)).toEqual([1, 1, 0]);
    });

    it('answers the retry of a request still in flight (a claim under 30 s) with 409, while a read completes the decision', async () => {
      const idempotencyKey = randomUUID();
      const body = decisionBody();
      const decisionId = await stopAfterDecision(body, idempotencyKey, 1_000);
      expectProblem(await post(body, idempotencyKey), 409, 'IDEMPOTENCY_KEY_IN_PROGRESS');
      expect(await grantsOf((await get(`${PATH}/${decisionId}`)).body.items)).toEqual([1, 1, 0]);
    });
  });

  it('needs consent:write to decide (and consent:identity-assert to send a verification), consent:read to read', async () => {
    const { apiKey: reader } = await api.tenantKey(['consent:read']);
    const { apiKey: writerOnly } = await api.tenantKey(['consent:write']);
    expectProblem(await recordsNoFact(api, () => post(decisionBody(), randomUUID(), reader)), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await recordsNoFact(api, () => post(decisionBody(), randomUUID(), writerOnly)), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await api.http.post(PATH).set('Idempotency-Key', randomUUID()).send(decisionBody()), 401, 'UNAUTHENTICATED');
    const recorded = await post(decisionBody());
    expectProblem(await get(`${PATH}/${recorded.body.decisionId}`, writerOnly), 403, 'INSUFFICIENT_SCOPE');
    expect((await get(`${PATH}/${recorded.body.decisionId}`, reader)).status).toBe(404);
  });

  it('decides for a customer resolved earlier, by customerId, whose stored identifiers satisfy each REDEC profile', async () => {
    const resolved = await api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${key}`).send(verifiedCustomer());
    const { userReference: _u, identifiers: _i, ...body } = decisionBody();
    const recorded = await post({ ...body, customerId: resolved.body.customerId });
    expect(recorded.status).toBe(201);
    expect(recorded.body.customerId).toBe(resolved.body.customerId);
    expectValidationError(await recordsNoFact(api, () => post({ ...body, customerId: resolved.body.customerId, userReference: 'x' })), [{ field: 'userReference', reason: 'not_with_customer_id' }]);
    expectProblem(await recordsNoFact(api, () => post({ ...body, customerId: randomUUID() })), 404, 'NOT_FOUND');
  });

  describe('with the queue workers running in the service', () => {
    let workersEnvironment: TestEnvironment;
    let workersApi: ApiApp;
    let mainApi: ApiApp;
    let mainKey: string;
    let workersTenantId: string;

    beforeAll(async () => {
      workersEnvironment = testEnvironment();
      workersApi = await startApiApp(workersEnvironment);
      [mainApi, mainKey] = [api, key];
      // The same tests' helpers, pointed at this service and a tenant of its own.
      api = workersApi;
      ({ apiKey: key, tenantId: workersTenantId } = await api.tenantKey([...SCOPES]));
      redec = await publish(redecConfiguration({ templateKey: `redec-${randomUUID()}` }));
      otherRedec = await publish(redecConfiguration({ templateKey: `redec-${randomUUID()}`, redec: { objectiveCodes: ['04'] } }));
      general = await publish(generalConfiguration('Términos del servicio'));
    });
    afterAll(async () => {
      [api, key] = [mainApi, mainKey];
      await workersApi?.close();
      await workersEnvironment?.dispose();
    });

    it('emits redec.notification.required once per REDEC grant of the decision, and renders each certificate', async () => {
      const receiver = await startWebhookReceiver();
      try {
        const endpoint = await api.http.post('/v1/webhook-endpoints').set('Authorization', `Bearer ${key}`).send({ url: receiver.url, eventTypes: ['redec.notification.required'] });
        expect(endpoint.status).toBe(201);
        const body = decisionBody({
          items: [
            { configurationId: redec, decision: 'accepted', redec: { evidence: electronic } },
            { configurationId: general, decision: 'accepted' },
            { configurationId: otherRedec, decision: 'accepted', redec: { evidence: electronic } },
          ],
        });
        const recorded = await post(body);
        expect(recorded.status).toBe(201);
        const grants = [recorded.body.items[0], recorded.body.items[2]];
        const about = (redecConsentId: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((m) => m.data.redec_consent_id === redecConsentId);
        await waitUntil(() => grants.every((g) => about(g.redecConsentId).length === 1), 15_000);
        for (const grant of grants) {
          expect(about(grant.redecConsentId)[0].data).toMatchObject({ notification_reason: 'grant', internal_consent_code: grant.internalConsentCode, granted_at: body.occurredAt });
        }
        expect(about(grants[0].redecConsentId)[0].data.objectives).toEqual(['02', '03']);
        expect(about(grants[1].redecConsentId)[0].data.objectives).toEqual(['04']);
        // Nothing else: the general consent has no regulatory notice.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receiver.received.map((r) => JSON.parse(r.body).data.redec_consent_id).sort()).toEqual(grants.map((g) => g.redecConsentId).sort());
        for (const grant of grants) {
          await waitUntil(async () => (await get(`/v1/redec/consents/${grant.redecConsentId}/artifact`)).body.status === 'ready', 15_000);
        }
      } finally {
        await receiver.close();
      }
    });

    it('names the data subject on the certificate of each REDEC item as the bank named them, under the customer’s key, and no one without a name', async () => {
      const certificateText = async (redecConsentId: string) => {
        await waitUntil(async () => (await get(`/v1/redec/consents/${redecConsentId}/artifact`)).body.status === 'ready', 15_000);
        const download = await get(`/v1/redec/consents/${redecConsentId}/artifact/download`).buffer(true).parse(binaryBody);
        return documentText(download.body as Buffer).replace(/\s+/g, ' ');
      };
      const items = [{ configurationId: redec, decision: 'accepted', redec: { evidence: electronic } }];
      const named = await post(decisionBody({ items, dataSubjectName: 'María José Pérez Soto' }));
      expect(named.status).toBe(201);
      const [recorded] = await api.store.readStream(consentStreams.decision(workersTenantId, named.body.decisionId));
      expect(JSON.stringify(recorded.data)).not.toContain('María');
      expect(await certificateText(named.body.items[0].redecConsentId)).toContain('Titular María José Pérez Soto');
      const unnamed = await post(decisionBody({ items }));
      expect(await certificateText(unnamed.body.items[0].redecConsentId)).not.toContain('Titular');
    });
  });
});
