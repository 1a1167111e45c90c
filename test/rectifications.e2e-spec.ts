import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// Corrections made for a rectification or a REDEC dispute
// (docs/reference/rights-requests.md, "Corrections"; decision 0072) through
// the HTTP stack the service runs, on the embedded SQLite store and on
// PostgreSQL: a correction is a new fact linked to the request, nothing
// recorded before is rewritten, and the data subject's report shows it.

const MINUTE = 60_000;
const sha = 'c'.repeat(64);

describe.each(EACH_STORE)('corrections of a rights request, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let auth: { Authorization: string };
  let consents: ReturnType<typeof redecConsents>;
  let subject: GrantedConsent;

  const post = (path: string, body: object, idempotencyKey: string = randomUUID()) => api.http.post(path).set(auth).set('Idempotency-Key', idempotencyKey).send(body);
  const receive = async (kind: string, customerId = subject.customerId, extra: object = {}) => {
    const received = await post('/v1/rights-requests', { customerId, kind, receivedAt: Date.now() - 10 * MINUTE, channel: 'branch', sourceSystem: 'privacy-desk', sourceReference: `solicitud-${randomUUID()}`, ...extra });
    expect(received.status).toBe(201);
    return received.body.rightsRequestId as string;
  };
  const rectify = (rightsRequestId: string, body: object, idempotencyKey?: string) => post(`/v1/rights-requests/${rightsRequestId}/rectifications`, body, idempotencyKey);
  const correction = (record: object = { kind: 'bank_record', sourceSystem: 'core-crm', sourceReference: 'direccion-7' }) => ({ occurredAt: Date.now() - MINUTE, record, description: 'Corregimos su dirección postal.' });

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment);
    const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']);
    auth = { Authorization: `Bearer ${apiKey}` };
    consents = redecConsents(api, apiKey);
    subject = await consents.grantSettled();
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('records a correction as a new fact linked to the request, rewrites nothing before it, and records it once for a retried key', async () => {
    const rightsRequestId = await receive('rectification');
    const before = (await api.http.get(`/v1/rights-requests/${rightsRequestId}`).set(auth)).body;
    const key = randomUUID();
    const body = correction();
    const rectified = await rectify(rightsRequestId, body, key);
    expect(rectified.status).toBe(201);
    expect(rectified.body.status).toBe('received');
    expect(rectified.body.history.slice(0, before.history.length)).toEqual(before.history);
    const step = rectified.body.history.at(-1);
    expect(step).toEqual({
      step: 'rectified',
      occurredAt: expect.any(Number),
      recordedAt: expect.any(Number),
      rectificationId: expect.any(String),
      record: { kind: 'bank_record', sourceSystem: 'core-crm', sourceReference: 'direccion-7' },
      description: 'Corregimos su dirección postal.',
    });
    const retried = await recordsNoFact(api, () => rectify(rightsRequestId, body, key));
    expect(retried.body.history.at(-1).rectificationId).toBe(step.rectificationId);
    expect((await api.http.get(`/v1/rights-requests/${rightsRequestId}`).set(auth)).body.history.filter((item: { step: string }) => item.step === 'rectified')).toHaveLength(1);
  });

  it("names a consent of the request's data subject, or the customer's record; another customer's consent and a member of another kind are refused, recording nothing", async () => {
    const rightsRequestId = await receive('redec_dispute', subject.customerId, { redec: { classification: 'rectification', reasonCode: '03', operationReference: 'op-9' } });
    expect((await rectify(rightsRequestId, correction({ kind: 'redec_consent', redecConsentId: subject.redecConsentId }))).body.history.at(-1).record).toEqual({ kind: 'redec_consent', redecConsentId: subject.redecConsentId });
    expect((await rectify(rightsRequestId, correction({ kind: 'customer' }))).status).toBe(201);

    const stranger = await consents.grantSettled();
    const refused = await recordsNoFact(api, () => rectify(rightsRequestId, correction({ kind: 'redec_consent', redecConsentId: stranger.redecConsentId })));
    expectValidationError(refused, [{ field: 'record.redecConsentId', reason: 'not_a_consent_of_the_customer' }]);
    expectValidationError(await recordsNoFact(api, () => rectify(rightsRequestId, correction({ kind: 'customer', sourceSystem: 'core-crm' }))), [{ field: 'record.sourceSystem', reason: 'only_with_bank_record' }]);
    expectProblem(await recordsNoFact(api, () => rectify(rightsRequestId, correction({ kind: 'bank_record', sourceSystem: 'core-crm' }))), 400, 'VALIDATION_ERROR');
    expectProblem(await recordsNoFact(api, () => rectify(rightsRequestId, { ...correction(), description: '' })), 400, 'VALIDATION_ERROR');
  });

  it('is refused for another kind, after a refusal, before the receipt and for another tenant, and taken once answered in part', async () => {
    const access = await receive('access');
    expectProblem(await recordsNoFact(api, () => rectify(access, correction())), 409, 'rights_request_invalid_transition');

    const rightsRequestId = await receive('rectification');
    expectValidationError(await recordsNoFact(api, () => rectify(rightsRequestId, { ...correction(), occurredAt: Date.now() - 11 * MINUTE })), [{ field: 'occurredAt', reason: 'occurred_at_before_receipt' }]);
    const answer = (outcome: string) => ({ to: 'resolved', occurredAt: Date.now(), outcome, reason: 'Según nuestros registros.', response: { channel: 'letter', sentAt: Date.now(), contentSha256: sha } });
    expect((await post(`/v1/rights-requests/${rightsRequestId}/transitions`, answer('partially_approved'))).status).toBe(200);
    expect((await rectify(rightsRequestId, correction())).status).toBe(201);

    const refusedRequest = await receive('rectification');
    expect((await post(`/v1/rights-requests/${refusedRequest}/transitions`, answer('rejected'))).status).toBe(200);
    expectProblem(await recordsNoFact(api, () => rectify(refusedRequest, correction())), 409, 'rights_request_invalid_transition');

    const other = await api.tenantKey(['consent:write']);
    expectProblem(await api.http.post(`/v1/rights-requests/${rightsRequestId}/rectifications`).set({ Authorization: `Bearer ${other.apiKey}`, 'Idempotency-Key': randomUUID() }).send(correction()), 404, 'NOT_FOUND');
  });

  it("shows the correction in the data subject's report", async () => {
    const rightsRequestId = await receive('rectification');
    const { rectificationId } = (await rectify(rightsRequestId, correction())).body.history.at(-1);
    const access = await receive('access');
    const report = (await api.http.get(`/v1/rights-requests/${access}/subject-report`).set(auth)).body;
    const reported = report.rightsRequests.find((request: { rightsRequestId: string }) => request.rightsRequestId === rightsRequestId);
    expect(reported.rectifications).toEqual([{ rectificationId, rectifiedAt: expect.any(Number), record: { kind: 'bank_record', sourceSystem: 'core-crm', sourceReference: 'direccion-7' }, description: 'Corregimos su dirección postal.' }]);
    expect(reported.history.map((step: { step: string }) => step.step)).toEqual(['received', 'rectified']);
  });
});
