import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { queueToken } from '@ledger/queues';
import { addCalendarDays, dailyRunDue, endOfLocalDay, localDateOf, redecStreams, startOfLocalDay } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { rutOf } from './support/redec-fixtures';
import { binaryBody } from './support/text-body';
import { startWebhookReceiver } from './support/webhook-receiver';

// RDC40 (docs/regulatory-reports.md, "6. RDC40: REDEC disputes, every day";
// decision 0074) through the HTTP stack the service runs, on the embedded
// SQLite store and on PostgreSQL: one line per step of each REDEC dispute of
// the day, the "no movements" file of a day without any, the same bytes on a
// second run, and the day's file made at 01:00 for a tenant that opted in,
// announced by report.created. The disputes are recorded by a service whose clock runs
// two days behind (LEDGER_CLOCK_OFFSET_MS), so that their day has ended
// when the service is started again on the real clock.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let nextRutBody = 25_000_000;

describe.each(EACH_STORE)('RDC40, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp | undefined;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await environment?.dispose();
  });

  it("reports each step of the day's disputes, the same bytes twice, a day without any as no movements, and the day's file at 01:00 for a tenant that opted in", async () => {
    environment = environmentOf();
    receiver = await startWebhookReceiver();
    api = await startApiApp(environment, { LEDGER_CLOCK_OFFSET_MS: String(-2 * DAY) });
    const { tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:report']);
    const auth = { Authorization: `Bearer ${apiKey}` };
    const post = (path: string, body: object) => api!.http.post(path).set(auth).set('Idempotency-Key', randomUUID()).send(body);
    expect((await api.http.put('/v1/tenant-settings').set(auth).send({ institutionCode: '0000000077', dailyRightsReport: true })).body).toMatchObject({ dailyRightsReport: true });
    expect((await api.http.post('/v1/webhook-endpoints').set(auth).send({ url: receiver.url, eventTypes: ['report.created'] })).status).toBe(201);

    const customer = await post('/v1/customers/resolve', { userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }] });
    const serviceNow = () => Date.now() - 2 * DAY;
    const dispute = (classification: string, channel: string, operationReference: string) =>
      post('/v1/rights-requests', {
        customerId: customer.body.customerId,
        kind: 'redec_dispute',
        receivedAt: serviceNow() - MINUTE,
        channel,
        sourceSystem: 'privacy-desk',
        sourceReference: `disputa-${randomUUID()}`,
        redec: { classification, reasonCode: '04', operationReference },
      });
    const first = (await dispute('cancellation', 'web', 'loan-2291')).body;
    expect((await post(`/v1/rights-requests/${first.rightsRequestId}/transitions`, { to: 'in_analysis', occurredAt: serviceNow() })).status).toBe(200);
    const second = (await dispute('rectification', 'branch', 'card-77')).body;
    const refusal = { to: 'resolved', occurredAt: serviceNow(), outcome: 'rejected', reason: 'El dato informado es correcto.', response: { channel: 'letter', sentAt: serviceNow(), contentSha256: 'c'.repeat(64) } };
    expect((await post(`/v1/rights-requests/${second.rightsRequestId}/transitions`, refusal)).status).toBe(200);
    // Not a REDEC dispute: no line.
    expect((await post('/v1/rights-requests', { customerId: customer.body.customerId, kind: 'access', receivedAt: serviceNow(), channel: 'web', sourceSystem: 'privacy-desk', sourceReference: 'acceso-1' })).status).toBe(201);
    const disputeFacts = (await api.store.readAll()).filter((event) => event.streamId.startsWith(redecStreams.rightsRequest(tenantId, '')));
    await api.close();

    // Back on the real clock: the catch-up makes the file due now for the tenant that opted in two days ago.
    api = await startApiApp(environment);
    const due = dailyRunDue(Date.now());
    await receiver.waitForCount(1, 60_000);
    const announced = JSON.parse(receiver.received[0].body) as { type: string; data: { kind: string; report_id: string; period_start: number; period_end: number } };
    expect(announced).toMatchObject({ type: 'report.created', data: { kind: 'rdc40', period_start: due.period.periodStart, period_end: due.period.periodEnd } });
    const [requested] = await api.store.readStream(redecStreams.report(tenantId, announced.data.report_id));
    expect(requested.metadata.actor).toBe('scheduler:daily-rights-report');
    const schedulers = await api.app.get<Queue>(queueToken('scheduled-reports')).getJobSchedulers();
    expect(schedulers).toContainEqual(expect.objectContaining({ key: 'daily-rights-report', pattern: '0 1 * * *', tz: 'America/Santiago' }));

    const report = async (periodStart: number, periodEnd: number) => {
      const asked = await post('/v1/redec/reports', { kind: 'rdc40', periodStart, periodEnd });
      expect(asked.status).toBe(202);
      let read: { status: string; records: number; metadata: Record<string, number> } = { status: 'pending', records: 0, metadata: {} };
      await waitUntil(async () => (read = (await api!.http.get(`/v1/redec/reports/${asked.body.reportId}`).set(auth)).body).status !== 'pending', 30_000);
      expect(read.status).toBe('ready');
      const content = await api!.http.get(`/v1/redec/reports/${asked.body.reportId}/content`).set(auth).buffer(true).parse(binaryBody);
      return { ...read, content: content.body as Buffer };
    };
    const lines = (content: Buffer) => content.toString('ascii').split('\r\n').slice(0, -1);

    // The days the disputes' facts fall on: their instants and their recordings.
    const instants = disputeFacts.flatMap((event) => [event.metadata.recordedAt]);
    const days = { periodStart: startOfLocalDay(localDateOf(Math.min(...instants) - 2 * MINUTE)), periodEnd: endOfLocalDay(localDateOf(Math.max(...instants))) };
    const withEvents = await report(days.periodStart, days.periodEnd);
    expect(withEvents.metadata).toEqual({ totalRecords: 4, filed: 2, analysisStarted: 1, closed: 1, noMovements: 0 });
    const [header, ...details] = lines(withEvents.content);
    expect(header.slice(0, 15)).toBe('0000000077RDC40');
    // Request id, entry channel, answer + event + classification codes, reason, operation; in the order they happened.
    const fields = (line: string) => [line.slice(0, 36), line.slice(44, 64).trim(), line.slice(64, 67), line.slice(67, 87).trim(), line.slice(87).trim()].join(' ');
    expect(details.map(fields)).toEqual([
      `${first.rightsRequestId} web 014 04 loan-2291`,
      `${second.rightsRequestId} branch 012 04 card-77`,
      `${first.rightsRequestId} web 024 04 loan-2291`,
      `${second.rightsRequestId} branch 332 04 card-77`,
    ]);
    for (const line of lines(withEvents.content)) expect(line).toHaveLength(117);
    expect((await report(days.periodStart, days.periodEnd)).content.equals(withEvents.content)).toBe(true);

    // Five days ago nothing moved: the header alone.
    const quiet = addCalendarDays(localDateOf(Date.now()), -5);
    const noMovements = await report(startOfLocalDay(quiet), endOfLocalDay(quiet));
    expect(noMovements).toMatchObject({ records: 0, metadata: { totalRecords: 0, noMovements: 1 } });
    expect(lines(noMovements.content)).toEqual([`0000000077RDC40${quiet.replace(/-/g, '')}${' '.repeat(94)}`]);
    expect((await report(startOfLocalDay(quiet), endOfLocalDay(quiet))).content.equals(noMovements.content)).toBe(true);
  });
});
