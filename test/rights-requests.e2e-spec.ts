import { randomUUID } from 'node:crypto';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable } from '@ledger/ledger';
import { redecStreams } from '@ledger/redec';
import { ApiApp, rightsDeadlineChecks, startApiApp, waitUntil } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact } from './support/expectations';
import { rutOf } from './support/redec-fixtures';
import { redecConsents } from './support/redec-consents';
import { startWebhookReceiver } from './support/webhook-receiver';

// Data subjects' rights requests (docs/reference/rights-requests.md,
// decision 0067) through the real HTTP stack, store and Redis: receipt with
// its legal deadline, each step of the request's life, and what is refused.

const PATH = '/v1/rights-requests';
const at = (iso: string) => Date.parse(iso);
const sha = 'b'.repeat(64);

describe.each(EACH_STORE)('rights requests: /v1/rights-requests, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let tenantId: string;
  let otherKey: string;
  let nextRutBody = 25_000_000;

  const post = (path: string, body: object, idempotencyKey: string | null = randomUUID(), apiKey = key) => {
    const request = api.http.post(path).set('Authorization', `Bearer ${apiKey}`);
    return (idempotencyKey === null ? request : request.set('Idempotency-Key', idempotencyKey)).send(body);
  };
  const get = (id: string, apiKey = key) => api.http.get(`${PATH}/${id}`).set('Authorization', `Bearer ${apiKey}`);
  const request = (overrides: Record<string, unknown> = {}) => ({
    userReference: `cliente-${randomUUID()}`,
    identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }],
    kind: 'access',
    // Monday 10 August 2026, 10:00 in Santiago: due at the end of Wednesday 9 September, long past.
    receivedAt: at('2026-08-10T14:00:00Z'),
    channel: 'web',
    sourceSystem: 'crm',
    sourceReference: `case-${randomUUID()}`,
    ...overrides,
  });
  const step = (id: string, body: object) => post(`${PATH}/${id}/transitions`, body);

  beforeAll(async () => {
    environment = environmentOf();
    // The deadline check runs once as the app starts, before any request is filed, and not again in this suite: its notices
    // (test/rights-request-deadlines.e2e-spec.ts) would be facts appended beside the ones each test reads.
    api = await startApiApp(environment, { LEDGER_RIGHTS_DEADLINE_CHECK_MS: String(24 * 3_600_000) });
    await rightsDeadlineChecks(api, 1);
    ({ apiKey: key, tenantId } = await api.tenantKey(['consent:write', 'consent:read']));
    ({ apiKey: otherKey } = await api.tenantKey(['consent:write', 'consent:read']));
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('records a request for a customer resolved inline, with its legal deadline, and answers it again as recorded', async () => {
    const received = await post(PATH, request({ description: 'Quiero saber qué datos tienen de mí' }));
    expect(received.status).toBe(201);
    expect(received.body).toMatchObject({
      kind: 'access',
      status: 'received',
      receivedAt: at('2026-08-10T14:00:00Z'),
      dueAt: at('2026-09-10T02:59:59.999Z'),
      extended: false,
      outcome: null,
      complaintDeadline: null,
      overdue: true,
      channel: 'web',
      description: 'Quiero saber qué datos tienen de mí',
      history: [{ step: 'received', occurredAt: at('2026-08-10T14:00:00Z'), dueAt: at('2026-09-10T02:59:59.999Z') }],
    });
    expect((await get(received.body.rightsRequestId)).body).toEqual(received.body);
    // The data subject's words are not in the ledger in clear.
    const [fact] = await api.store.readStream(redecStreams.rightsRequest(tenantId, received.body.rightsRequestId));
    expect(JSON.stringify(fact.data)).not.toContain('Quiero saber');
  });

  it('replays an identical request sent again with its Idempotency-Key, and requires one', async () => {
    const body = request();
    const idempotencyKey = randomUUID();
    const first = await post(PATH, body, idempotencyKey);
    const again = await post(PATH, body, idempotencyKey);
    expect(again.status).toBe(201);
    expect(again.body.rightsRequestId).toBe(first.body.rightsRequestId);
    expectProblem(await recordsNoFact(api, () => post(PATH, request(), null)), 400, 'IDEMPOTENCY_KEY_REQUIRED');
  });

  it('gives a blocking request two banking days, and a REDEC dispute its classification', async () => {
    // Thursday 17 September 2026: the Fiestas Patrias holidays and the weekend do not count.
    const block = await post(PATH, request({ kind: 'blocking', receivedAt: at('2026-09-17T13:00:00Z') }));
    expect(block.body.dueAt).toBe(at('2026-09-23T02:59:59.999Z'));
    const redec = { classification: 'rectification', reasonCode: '03', operationReference: 'op-77' };
    const dispute = await post(PATH, request({ kind: 'redec_dispute', redec }));
    expect(dispute.status).toBe(201);
    expect(dispute.body.redec).toEqual(redec);
  });

  it('refuses, recording nothing, a dispute without its REDEC fields, REDEC fields on another kind, an unknown kind and a receipt in the future', async () => {
    const refused = (body: object) => recordsNoFact(api, () => post(PATH, body));
    expectValidationError(await refused(request({ kind: 'redec_dispute' })), [{ field: 'redec', reason: 'required_for_redec_dispute' }]);
    expectValidationError(await refused(request({ redec: { classification: 'update', reasonCode: '01', operationReference: 'op-1' } })), [{ field: 'redec', reason: 'only_with_redec_dispute' }]);
    expectProblem(await refused(request({ kind: 'erasure' })), 400, 'VALIDATION_ERROR');
    expectValidationError(await refused(request({ receivedAt: Date.now() + 3_600_000 })), [{ field: 'receivedAt', reason: 'in_the_future' }]);
  });

  it('goes through analysis, one extension and a refusal, each step in the history, and refuses a step out of order', async () => {
    const id = (await post(PATH, request())).body.rightsRequestId;
    expect((await step(id, { to: 'in_analysis', occurredAt: at('2026-08-11T14:00:00Z') })).status).toBe(200);
    const extended = await step(id, { to: 'extended', occurredAt: at('2026-09-01T14:00:00Z'), reason: 'many records to gather' });
    // 10 August + 60 calendar days = 9 October.
    expect(extended.body).toMatchObject({ status: 'in_analysis', extended: true, dueAt: at('2026-10-10T02:59:59.999Z') });
    expectProblem(await recordsNoFact(api, () => step(id, { to: 'extended', occurredAt: at('2026-09-02T14:00:00Z'), reason: 'again' })), 409, 'rights_request_already_extended');
    expectValidationError(await recordsNoFact(api, () => step(id, { to: 'in_analysis', occurredAt: at('2026-08-20T14:00:00Z') })), [{ field: 'occurredAt', reason: 'occurred_at_before_previous_fact' }]);

    const response = { channel: 'email', sentAt: at('2026-10-02T13:00:00Z'), contentSha256: sha };
    expectValidationError(await step(id, { to: 'resolved', occurredAt: at('2026-10-02T13:00:00Z'), outcome: 'rejected', response }), [{ field: 'reason', reason: 'required' }]);
    const resolved = await step(id, { to: 'resolved', occurredAt: at('2026-10-02T13:00:00Z'), outcome: 'rejected', reason: 'the requester is not the data subject', response });
    // Sent Friday 2 October 2026; 12 October is a holiday (31 October and 1 November fall on a weekend): the 30th business day is Monday 16 November.
    expect(resolved.body).toMatchObject({ status: 'resolved', outcome: 'rejected', complaintDeadline: at('2026-11-17T02:59:59.999Z'), overdue: false });
    expect(resolved.body.history.map((item: { step: string }) => item.step)).toEqual(['received', 'in_analysis', 'extended', 'resolved']);
    expect(resolved.body.history[3]).toEqual({ step: 'resolved', occurredAt: response.sentAt, recordedAt: expect.any(Number), outcome: 'rejected', reason: 'the requester is not the data subject', response });
    expectProblem(await recordsNoFact(api, () => step(id, { to: 'in_analysis', occurredAt: at('2026-10-03T13:00:00Z') })), 409, 'rights_request_invalid_transition');
  });

  it('lifts an approved block once; a request of another kind has no block to lift', async () => {
    const block = (await post(PATH, request({ kind: 'blocking', receivedAt: at('2026-09-17T13:00:00Z') }))).body.rightsRequestId;
    expectProblem(await step(block, { to: 'extended', occurredAt: at('2026-09-18T13:00:00Z'), reason: 'x' }), 409, 'rights_request_not_extensible');
    await step(block, { to: 'resolved', occurredAt: at('2026-09-21T13:00:00Z'), outcome: 'approved', response: { channel: 'email', sentAt: at('2026-09-21T13:00:00Z'), contentSha256: sha } });
    const lifted = await step(block, { to: 'block_lifted', occurredAt: at('2026-10-21T13:00:00Z'), reason: 'withdrawn by the data subject' });
    expect(lifted.body).toMatchObject({ status: 'block_lifted', outcome: 'approved', complaintDeadline: null });
    expectProblem(await step(block, { to: 'block_lifted', occurredAt: at('2026-10-22T13:00:00Z') }), 409, 'rights_request_invalid_transition');
  });

  it("keeps another tenant's requests out of sight, and forgets the data subject's words once the customer's key is destroyed", async () => {
    const received = await post(PATH, request({ description: 'Bloqueen mis datos' }));
    expectProblem(await get(received.body.rightsRequestId, otherKey), 404, 'NOT_FOUND');
    expectProblem(await step(received.body.rightsRequestId, { to: 'in_analysis', occurredAt: Date.now() }).set('Authorization', `Bearer ${otherKey}`), 404, 'NOT_FOUND');
    expectProblem(await get(randomUUID()), 404, 'NOT_FOUND');

    await api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE).destroy(tenantId, received.body.customerId, Date.now());
    expect((await get(received.body.rightsRequestId)).body).toMatchObject({ rightsRequestId: received.body.rightsRequestId, description: null, status: 'received' });
  });

  it('lists the open requests overdue or due within N days by deadline, and every request in the order received, filtered and paged', async () => {
    const { apiKey } = await api.tenantKey(['consent:write', 'consent:read']);
    const receive = async (overrides: Record<string, unknown>) => (await post(PATH, request(overrides), randomUUID(), apiKey)).body.rightsRequestId as string;
    const list = async (query: string) => {
      const answer = await api.http.get(`${PATH}?${query}`).set('Authorization', `Bearer ${apiKey}`);
      expect(answer.status).toBe(200);
      return answer.body as { items: Array<{ rightsRequestId: string; overdue: boolean; dueAt: number }>; nextCursor: string | null };
    };
    const ids = (page: { items: Array<{ rightsRequestId: string }> }) => page.items.map((item) => item.rightsRequestId);

    const late = await receive({});
    const resolved = await receive({ receivedAt: at('2026-08-11T14:00:00Z') });
    await post(`${PATH}/${resolved}/transitions`, { to: 'resolved', occurredAt: at('2026-08-20T14:00:00Z'), outcome: 'approved', response: { channel: 'email', sentAt: at('2026-08-20T14:00:00Z'), contentSha256: sha } }, randomUUID(), apiKey);
    // Received now: a block is due within two banking days (at most six calendar days, over a long weekend), an access request in 30.
    const block = await receive({ kind: 'blocking', receivedAt: Date.now() - 60_000 });
    const recent = await receive({ receivedAt: Date.now() - 60_000 });

    expect(ids(await list('overdue=true'))).toEqual([late]);
    expect((await list('overdue=true')).items[0]).toMatchObject({ overdue: true, dueAt: at('2026-09-10T02:59:59.999Z') });
    expect(ids(await list('dueWithinDays=10'))).toEqual([late, block]);
    expect(ids(await list('dueWithinDays=40'))).toEqual([late, block, recent]);
    expect(ids(await list(''))).toEqual([late, resolved, block, recent]);
    expect(ids(await list('kind=blocking'))).toEqual([block]);
    expect(ids(await list('status=resolved'))).toEqual([resolved]);

    const first = await list('limit=3');
    expect(ids(first)).toEqual([late, resolved, block]);
    expect(ids(await list(`limit=3&cursor=${first.nextCursor}`))).toEqual([recent]);
    expectValidationError(await api.http.get(`${PATH}?cursor=bm90LWEtY3Vyc29y`).set('Authorization', `Bearer ${apiKey}`), [{ field: 'cursor', reason: 'invalid_cursor' }]);
    expectProblem(await api.http.get(`${PATH}?overdue=yes`).set('Authorization', `Bearer ${apiKey}`), 400, 'VALIDATION_ERROR');
    // Another tenant's overdue request is not in the list.
    const elsewhere = (await post(PATH, request())).body.rightsRequestId;
    expect(ids(await list('overdue=true'))).toEqual([late]);
    expect(elsewhere).not.toBe(late);
  });

  it('announces a receipt with its deadline and a resolution with its outcome to the endpoints subscribed to them', async () => {
    const { apiKey } = await api.tenantKey(['consent:write', 'consent:read', 'consent:admin']);
    const receiver = await startWebhookReceiver();
    try {
      const endpoint = await api.http.post('/v1/webhook-endpoints').set('Authorization', `Bearer ${apiKey}`).send({ url: receiver.url, eventTypes: ['rights_request.received', 'rights_request.resolved'] });
      expect(endpoint.status).toBe(201);
      const received = (await post(PATH, request({ kind: 'blocking', receivedAt: at('2026-09-17T13:00:00Z') }), randomUUID(), apiKey)).body;
      await post(`${PATH}/${received.rightsRequestId}/transitions`, { to: 'in_analysis', occurredAt: at('2026-09-17T14:00:00Z') }, randomUUID(), apiKey);
      const refusal = { to: 'resolved', occurredAt: at('2026-09-21T13:00:00Z'), outcome: 'rejected', reason: 'no grounds', response: { channel: 'email', sentAt: at('2026-09-21T13:00:00Z'), contentSha256: sha } };
      const resolved = (await post(`${PATH}/${received.rightsRequestId}/transitions`, refusal, randomUUID(), apiKey)).body;
      await waitUntil(() => receiver.received.length >= 2, 15_000);
      // The analysis announces nothing.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Each is a job of its own: compared in the order of their types, not of their arrival.
      const messages = receiver.received.map((r) => JSON.parse(r.body)).map(({ type, data }) => ({ type, data }));
      expect(messages.sort((a, b) => a.type.localeCompare(b.type))).toEqual([
        { type: 'rights_request.received', data: { kind: 'blocking', rights_request_id: received.rightsRequestId, customer_id: received.customerId, received_at: received.receivedAt, due_at: at('2026-09-23T02:59:59.999Z') } },
        { type: 'rights_request.resolved', data: { rights_request_id: received.rightsRequestId, outcome: 'rejected', resolved_at: refusal.occurredAt, complaint_deadline: resolved.complaintDeadline } },
      ]);
    } finally {
      await receiver.close();
    }
  });

  describe('an opposition that names the consents it concerns (decision 0070)', () => {
    let consents: ReturnType<typeof redecConsents>;
    let admin: string;
    beforeAll(async () => {
      ({ apiKey: admin } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
      consents = redecConsents(api, admin);
    });
    const oppose = (body: object) => post(PATH, { kind: 'opposition', receivedAt: Date.now() - 60_000, channel: 'web', sourceSystem: 'crm', sourceReference: `case-${randomUUID()}`, ...body }, randomUUID(), admin);

    it('records them with the request, and shows them', async () => {
      const first = await consents.grant();
      const second = await consents.grant({ customerId: first.customerId });
      const opposed = await oppose({ customerId: first.customerId, redecConsentIds: [first.redecConsentId, second.redecConsentId.toUpperCase()] });
      expect(opposed.status).toBe(201);
      expect(opposed.body.redecConsentIds).toEqual([first.redecConsentId, second.redecConsentId]);
      expect((await get(opposed.body.rightsRequestId, admin)).body.redecConsentIds).toEqual([first.redecConsentId, second.redecConsentId]);
      // Recorded, not acted on: the consent is still granted.
      expect((await api.http.get(`/v1/redec/consents/${first.redecConsentId}`).set('Authorization', `Bearer ${admin}`)).body.status).toBe('granted');
    });

    it("refuses, recording nothing, a consent of another customer or none, an inline customer, and consents with another kind", async () => {
      const mine = await consents.grantSettled();
      const theirs = await consents.grantSettled();
      expectValidationError(await recordsNoFact(api, () => oppose({ customerId: mine.customerId, redecConsentIds: [mine.redecConsentId, theirs.redecConsentId] })), [
        { field: 'redecConsentIds[1]', reason: 'not_a_consent_of_the_customer' },
      ]);
      expectValidationError(await recordsNoFact(api, () => oppose({ customerId: mine.customerId, redecConsentIds: [randomUUID()] })), [{ field: 'redecConsentIds[0]', reason: 'not_a_consent_of_the_customer' }]);
      const inline = { userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }] };
      expectValidationError(await recordsNoFact(api, () => oppose({ ...inline, redecConsentIds: [mine.redecConsentId] })), [{ field: 'customerId', reason: 'required_with_consents' }]);
      expectValidationError(await recordsNoFact(api, () => oppose({ kind: 'suppression', customerId: mine.customerId, redecConsentIds: [mine.redecConsentId] })), [
        { field: 'redecConsentIds', reason: 'only_with_opposition' },
      ]);
    });
  });
});
