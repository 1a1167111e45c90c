import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { queueToken } from '@ledger/queues';
import { ApiApp, rightsDeadlineChecks, startApiApp, waitUntil } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { rutOf } from './support/redec-fixtures';
import { startWebhookReceiver } from './support/webhook-receiver';

// The deadline notices of rights requests (docs/reference/events.md,
// "rights_request.due_soon and rights_request.overdue"; decision 0069)
// through the app `npm start` runs, its own scheduled check and its webhook
// delivery, on the embedded SQLite store and on PostgreSQL: an open request
// near its deadline is announced due soon, one past it overdue, each once,
// and each notice is in the request's history.

const DAY = 86_400_000;
/** Short enough that a test sees several checks. */
const CHECK_MS = 300;

describe.each(EACH_STORE)('rights request deadline notices, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let nextRutBody = 27_000_000;

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment, { LEDGER_RIGHTS_DEADLINE_CHECK_MS: String(CHECK_MS) });
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('announces an open request due soon and a late one overdue, each once, and shows each notice in the request', async () => {
    const { apiKey } = await api.tenantKey(['consent:write', 'consent:read', 'consent:admin']);
    const auth = { Authorization: `Bearer ${apiKey}` };
    const receiver = await startWebhookReceiver();
    try {
      const endpoint = await api.http.post('/v1/webhook-endpoints').set(auth).send({ url: receiver.url, eventTypes: ['rights_request.due_soon', 'rights_request.overdue'] });
      expect(endpoint.status).toBe(201);
      const file = async (kind: string, receivedAt: number) => {
        const received = await api.http
          .post('/v1/rights-requests')
          .set(auth)
          .set('Idempotency-Key', randomUUID())
          .send({
            userReference: `cliente-${randomUUID()}`,
            identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }],
            kind,
            receivedAt,
            channel: 'web',
            sourceSystem: 'privacy-desk',
            sourceReference: `solicitud-${randomUUID()}`,
          });
        expect(received.status).toBe(201);
        return received.body as { rightsRequestId: string; customerId: string; dueAt: number };
      };
      // Received 40 days ago: past its 30 days. Received 27 days ago: due within the next 3 or 4. Received now: neither.
      const late = await file('access', Date.now() - 40 * DAY);
      const nearlyDue = await file('opposition', Date.now() - 27 * DAY);
      const recent = await file('portability', Date.now());

      await waitUntil(() => receiver.received.length >= 2, 20_000);
      // Several more checks: none may announce anything again.
      const checked = await completedChecks();
      await rightsDeadlineChecks(api, checked + 3);
      const messages = receiver.received.map((r) => JSON.parse(r.body)).map(({ type, data }) => ({ type, data }));
      expect(messages.sort((a, b) => a.type.localeCompare(b.type))).toEqual([
        { type: 'rights_request.due_soon', data: { rights_request_id: nearlyDue.rightsRequestId, customer_id: nearlyDue.customerId, kind: 'opposition', due_at: nearlyDue.dueAt } },
        { type: 'rights_request.overdue', data: { rights_request_id: late.rightsRequestId, customer_id: late.customerId, kind: 'access', due_at: late.dueAt } },
      ]);

      const stepsOf = async (id: string) => (await api.http.get(`/v1/rights-requests/${id}`).set(auth)).body.history.map((item: { step: string; dueAt?: number }) => [item.step, item.dueAt]);
      expect(await stepsOf(late.rightsRequestId)).toEqual([
        ['received', late.dueAt],
        ['overdue_noticed', late.dueAt],
      ]);
      expect(await stepsOf(nearlyDue.rightsRequestId)).toEqual([
        ['received', nearlyDue.dueAt],
        ['due_soon_noticed', nearlyDue.dueAt],
      ]);
      expect(await stepsOf(recent.rightsRequestId)).toEqual([['received', recent.dueAt]]);

      // A notice moves none of the request's instants: the late request is still answered as of when the answer was sent.
      const sentAt = late.dueAt - DAY;
      const answered = await api.http
        .post(`/v1/rights-requests/${late.rightsRequestId}/transitions`)
        .set(auth)
        .set('Idempotency-Key', randomUUID())
        .send({ to: 'resolved', occurredAt: sentAt, outcome: 'approved', response: { channel: 'email', sentAt, contentSha256: 'd'.repeat(64) } });
      expect(answered.body).toMatchObject({ status: 'resolved', overdue: false });
    } finally {
      await receiver.close();
    }
  });

  const completedChecks = () => api.app.get<Queue>(queueToken('rights-deadlines')).getCompletedCount();
});
