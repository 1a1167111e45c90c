import { createHash, randomUUID } from 'node:crypto';
import { documentText } from '@ledger/artifacts/testing';
import { ApiApp, startApiApp } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { generalConsents } from './support/general-consents';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { initialWindowAccess } from './support/redec-fixtures';
import { binaryBody } from './support/text-body';

// The subject's report (docs/reference/rights-requests.md, "The subject's
// report"; decision 0071) through the HTTP stack the service runs, on the
// embedded SQLite store and on PostgreSQL: what the ledger holds about the
// data subject of an access or portability request, as JSON and as a PDF in
// Spanish, the same bytes for the same instant, and its SHA-256 recorded
// with the answer.

const MINUTE = 60_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe.each(EACH_STORE)("the subject's report, on %s", (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let auth: { Authorization: string };
  let consents: ReturnType<typeof redecConsents>;
  let first: GrantedConsent;
  let second: GrantedConsent;
  let bystander: GrantedConsent;
  let authorizedAccessId: string;
  let generalConsentId: string;
  let legalHoldId: string;

  const post = (path: string, body: object) => api.http.post(path).set(auth).set('Idempotency-Key', randomUUID()).send(body);
  const reportPath = (rightsRequestId: string, query = '') => `/v1/rights-requests/${rightsRequestId}/subject-report${query}`;
  /** The report's bytes as answered. */
  const report = (rightsRequestId: string, query = '') => api.http.get(reportPath(rightsRequestId, query)).set(auth).buffer(true).parse(binaryBody);
  /** A refusal, as a problem document. */
  const refusal = (rightsRequestId: string, query = '') => api.http.get(reportPath(rightsRequestId, query)).set(auth);
  const receive = async (kind: string, customerId: string, receivedAt = Date.now() - 10 * MINUTE) => {
    const received = await post('/v1/rights-requests', {
      customerId,
      kind,
      receivedAt,
      channel: 'web',
      sourceSystem: 'privacy-desk',
      sourceReference: `solicitud-${randomUUID()}`,
      description: 'Quiero saber qué datos míos tratan.',
    });
    expect(received.status).toBe(201);
    return received.body as { rightsRequestId: string; receivedAt: number };
  };
  const authorize = async (consent: GrantedConsent) => {
    const answer = await api.http.post('/v1/redec/accesses/authorize').set(auth).send(initialWindowAccess(consent.redecConsentId));
    expect(answer.status).toBe(201);
    return answer.body.decision as { status: string; redecAccessId: string };
  };

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment);
    const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']);
    auth = { Authorization: `Bearer ${apiKey}` };
    consents = redecConsents(api, apiKey);
    first = await consents.grant({ occurredAt: Date.now() - 3 * MINUTE });
    second = await consents.grant({ customerId: first.customerId, occurredAt: Date.now() - 2 * MINUTE });
    bystander = await consents.grant();

    const authorized = await authorize(first);
    expect(authorized.status).toBe('authorized');
    authorizedAccessId = authorized.redecAccessId;
    expect((await post(`/v1/redec/accesses/${authorizedAccessId}/confirm`, { outcome: { kind: 'accessed', accessedAt: Date.now() - 1_000 } })).status).toBe(200);
    await authorize(bystander);
    const notice = await post(`/v1/redec/consents/${first.redecConsentId}/notification-evidence`, {
      notificationReason: 'grant',
      notificationChannel: 'email',
      recipientHash: 'a'.repeat(64),
      status: 'delivered',
      sentAt: Date.now() - MINUTE,
      sourceSystem: 'notificador',
      sourceReference: `aviso-${randomUUID()}`,
      contentSha256: 'b'.repeat(64),
    });
    expect(notice.status).toBe(201);
    const hold = await post(`/v1/customers/${first.customerId}/legal-holds`, { reason: 'litigio', reference: 'causa C-118-2026' });
    expect(hold.status).toBe(201);
    legalHoldId = hold.body.legalHoldId;

    generalConsentId = (await generalConsents(api, apiKey).grant(first.customerId)).consentId;
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('answers, as canonical JSON, every consent of the subject with its accesses and their outcomes, the notices, holds, other consents and requests, and no one else’s', async () => {
    const { rightsRequestId } = await receive('access', first.customerId);
    const answer = await report(rightsRequestId);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['etag']).toBe(`"${sha256(answer.body)}"`);
    expect(answer.headers['cache-control']).toMatch(/no-store/);
    const json = answer.body.toString('utf8');
    const body = JSON.parse(json);
    // Canonical: keys sorted at every level, no whitespace.
    expect(json).toBe(JSON.stringify(sortedKeys(body)));

    expect(body).toMatchObject({ schema: 'subject-report/1', rightsRequestId, kind: 'access', asOf: expect.any(Number) });
    expect(body.dataSubject).toMatchObject({ customerId: first.customerId, userReference: expect.stringMatching(/^cliente-/), erasedAt: null });
    expect(body.dataSubject.identifiers).toEqual([expect.objectContaining({ system: 'cl-sii', type: 'rut', value: expect.stringMatching(/^\d{7,8}-[\dK]$/) })]);

    expect(body.redecConsents.map((consent: { representation: { redecConsentId: string } }) => consent.representation.redecConsentId)).toEqual([first.redecConsentId, second.redecConsentId]);
    const [firstReported, secondReported] = body.redecConsents;
    expect(firstReported.representation).toMatchObject({ internalConsentCode: first.internalConsentCode, status: 'granted', grantedAt: first.grantedAt });
    expect(firstReported.accesses).toEqual([
      expect.objectContaining({ redecAccessId: authorizedAccessId, status: 'authorized', denyReasonCode: null, confirmation: { outcome: { kind: 'accessed', accessedAt: expect.any(Number) }, confirmedAt: expect.any(Number) } }),
    ]);
    expect(firstReported.notices).toEqual([expect.objectContaining({ notificationReason: 'grant', notificationChannel: 'email', status: 'delivered' })]);
    expect(secondReported.accesses).toEqual([]);
    expect(body.generalConsents).toEqual([expect.objectContaining({ consentId: generalConsentId, consentTitle: 'Términos del servicio', revokedAt: null })]);
    expect(body.legalHolds).toEqual([expect.objectContaining({ legalHoldId, reason: 'litigio', reference: 'causa C-118-2026', releasedAt: null })]);
    expect(body.rightsRequests).toEqual([
      expect.objectContaining({ rightsRequestId, kind: 'access', status: 'received', description: 'Quiero saber qué datos míos tratan.', history: [{ step: 'received', occurredAt: expect.any(Number) }] }),
    ]);
    expect(json).not.toContain(bystander.redecConsentId);
    expect(json).not.toContain(bystander.customerId);
  });

  it('answers the same report as a PDF in Spanish, with the data subject’s identifier, consents, accesses and requests', async () => {
    const { rightsRequestId } = await receive('portability', first.customerId);
    const json = JSON.parse((await report(rightsRequestId)).body.toString('utf8'));
    const answer = await report(rightsRequestId, `?format=pdf&asOf=${json.asOf}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/pdf');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="informe-${rightsRequestId}-${json.asOf}.pdf"`);
    expect(answer.headers['etag']).toBe(`"${sha256(answer.body)}"`);
    // Lines wrap where the page ends them: the text is compared with its spaces and line breaks as one space.
    const text = documentText(answer.body).replace(/\s+/g, ' ');
    for (const expected of [
      'Informe de datos personales',
      'Respuesta a una solicitud de portabilidad',
      json.dataSubject.identifiers[0].value,
      first.internalConsentCode,
      second.internalConsentCode,
      'Autorizado',
      'consultado el',
      'aviso de otorgamiento por email (entregado)',
      'Términos del servicio',
      'litigio',
      'Quiero saber qué datos míos tratan.',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain(bystander.internalConsentCode);
  });

  it('gives the same bytes for the same asOf however much is recorded later, and the later facts to a later asOf', async () => {
    const { rightsRequestId } = await receive('access', first.customerId);
    const before = await report(rightsRequestId);
    const asOf = JSON.parse(before.body.toString('utf8')).asOf;
    const pdfBefore = (await report(rightsRequestId, `?format=pdf&asOf=${asOf}`)).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await authorize(second);
    await post(`/v1/customers/${first.customerId}/legal-holds/${legalHoldId}/release`, {});

    const again = await report(rightsRequestId, `?asOf=${asOf}`);
    expect(again.body.equals(before.body)).toBe(true);
    expect((await report(rightsRequestId, `?format=pdf&asOf=${asOf}`)).body.equals(pdfBefore)).toBe(true);

    const now = JSON.parse((await report(rightsRequestId)).body.toString('utf8'));
    expect(now.redecConsents[1].accesses).toEqual([expect.objectContaining({ redecAccessId: later.redecAccessId })]);
    expect(now.legalHolds[0].releasedAt).toEqual(expect.any(Number));
  });

  it('records with the answer the SHA-256 of the JSON and the PDF of the report sent, which GET gives again for its asOf', async () => {
    const { rightsRequestId } = await receive('access', first.customerId);
    const sent = await report(rightsRequestId, '?format=pdf');
    const asOf = Number(/-(\d+)\.pdf"$/.exec(sent.headers['content-disposition'])![1]);
    const sentAt = Date.now();
    const resolved = await post(`/v1/rights-requests/${rightsRequestId}/transitions`, {
      to: 'resolved',
      occurredAt: sentAt,
      outcome: 'approved',
      response: { channel: 'email', sentAt, contentSha256: sha256(sent.body) },
      subjectReportAsOf: asOf,
    });
    expect(resolved.status).toBe(200);
    const step = resolved.body.history.find((item: { step: string }) => item.step === 'resolved');
    const json = await report(rightsRequestId, `?asOf=${asOf}`);
    expect(step.subjectReport).toEqual({ asOf, jsonSha256: sha256(json.body), pdfSha256: sha256(sent.body) });
    expect(step.response.contentSha256).toBe(step.subjectReport.pdfSha256);
    // Read back from the request's facts, as recorded.
    expect((await api.http.get(`/v1/rights-requests/${rightsRequestId}`).set(auth)).body.history).toContainEqual(step);
  });

  it('takes the report as of when the answer was sent when the bank names no instant, or of the receipt’s recording if it was sent earlier, and records none for a refusal', async () => {
    const answer = (sentAt: number) => ({
      to: 'resolved',
      occurredAt: Date.now(),
      outcome: 'partially_approved',
      reason: 'Los datos de otro sistema se entregan aparte.',
      response: { channel: 'email', sentAt, contentSha256: 'c'.repeat(64) },
    });
    const reportOfAnswer = async (rightsRequestId: string, sentAt: number) => {
      const resolved = await post(`/v1/rights-requests/${rightsRequestId}/transitions`, answer(sentAt));
      expect(resolved.status).toBe(200);
      return resolved.body.history.find((item: { step: string }) => item.step === 'resolved').subjectReport;
    };

    const sent = await receive('portability', first.customerId, Date.now() - 20 * MINUTE);
    const sentAt = Date.now();
    const subjectReport = await reportOfAnswer(sent.rightsRequestId, sentAt);
    expect(subjectReport.asOf).toBe(sentAt);
    expect(subjectReport.jsonSha256).toBe(sha256((await report(sent.rightsRequestId, `?asOf=${sentAt}`)).body));
    expect(subjectReport.pdfSha256).toBe(sha256((await report(sent.rightsRequestId, `?format=pdf&asOf=${sentAt}`)).body));

    // Reported late: the answer went out before the ledger recorded the request, whose report stands from that recording.
    const late = await receive('access', first.customerId, Date.now() - 20 * MINUTE);
    const receiptRecordedAt = (await api.http.get(`/v1/rights-requests/${late.rightsRequestId}`).set(auth)).body.history[0].recordedAt;
    expect((await reportOfAnswer(late.rightsRequestId, Date.now() - 10 * MINUTE)).asOf).toBe(receiptRecordedAt);

    const refused = await receive('access', first.customerId);
    const rejection = { to: 'resolved', occurredAt: Date.now(), outcome: 'rejected', reason: 'No acreditó su identidad.', response: { channel: 'email', sentAt: Date.now(), contentSha256: 'c'.repeat(64) } };
    expectValidationError(await recordsNoFact(api, () => post(`/v1/rights-requests/${refused.rightsRequestId}/transitions`, { ...rejection, subjectReportAsOf: Date.now() })), [{ field: 'subjectReportAsOf', reason: 'only_with_subject_report' }]);
    const rejected = await post(`/v1/rights-requests/${refused.rightsRequestId}/transitions`, rejection);
    expect(rejected.status).toBe(200);
    expect(rejected.body.history.find((item: { step: string }) => item.step === 'resolved').subjectReport).toBeUndefined();
  });

  it('refuses a report for another kind of request, an instant to come or before the receipt, and another tenant’s request, recording nothing', async () => {
    const rectification = await receive('rectification', first.customerId);
    expectProblem(await refusal(rectification.rightsRequestId), 409, 'rights_request_without_subject_report');
    const access = await receive('access', first.customerId);
    expectValidationError(await refusal(access.rightsRequestId, `?asOf=${Date.now() + 10 * MINUTE}`), [{ field: 'asOf', reason: 'in_the_future' }]);
    expectValidationError(await refusal(access.rightsRequestId, `?asOf=${access.receivedAt - 1}`), [{ field: 'asOf', reason: 'before_receipt' }]);
    expectProblem(await refusal(access.rightsRequestId, '?format=docx'), 400, 'VALIDATION_ERROR');
    const stranger = await api.tenantKey(['consent:read']);
    expectProblem(await api.http.get(reportPath(access.rightsRequestId)).set({ Authorization: `Bearer ${stranger.apiKey}` }), 404, 'NOT_FOUND');

    const future = { to: 'resolved', occurredAt: Date.now(), outcome: 'approved', response: { channel: 'email', sentAt: Date.now(), contentSha256: 'c'.repeat(64) }, subjectReportAsOf: Date.now() + 10 * MINUTE };
    expectValidationError(await recordsNoFact(api, () => post(`/v1/rights-requests/${access.rightsRequestId}/transitions`, future)), [{ field: 'subjectReportAsOf', reason: 'in_the_future' }]);
    expect((await api.http.get(`/v1/rights-requests/${access.rightsRequestId}`).set(auth)).body.status).toBe('received');
  });
});

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, inner]) => [key, sortedKeys(inner)]));
}
