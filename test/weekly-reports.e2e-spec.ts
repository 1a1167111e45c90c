import { createHash, createHmac } from 'node:crypto';
import type { Queue } from 'bullmq';
import { queueToken } from '@ledger/queues';
import { addCalendarDays, dayOfWeek, localDateOf, redecStreams, startOfLocalDay } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { redecConsents } from './support/redec-consents';
import { binaryBody } from './support/text-body';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 16, item 4: an opted-in tenant's RDC30 and RDC31 are made every
// Saturday at 01:00 America/Santiago for the week just ended, and announced
// by `report.created`. The service is restarted with its clock shifted past
// that Saturday (LEDGER_CLOCK_OFFSET_MS): the run it missed while down is
// made at start, once.
describe('weekly reports', () => {
  const HOUR = 3_600_000;
  let environment: TestEnvironment;
  let api: ApiApp | undefined;
  let reports: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let notifications: Awaited<ReturnType<typeof startWebhookReceiver>>;

  afterAll(async () => {
    await api?.close();
    await Promise.all([reports?.close(), notifications?.close()]);
    await environment?.dispose();
  });

  /** Completed weekly catch-up runs of this instance's scheduled-reports queue. */
  const catchUps = async (app: ApiApp) =>
    (await app.app.get<Queue>(queueToken('scheduled-reports')).getCompleted()).filter((job) => job.name === 'catch-up' && job.data.schedule === 'weekly-reports').length;

  it('makes the week missed while the service was down at the next start, once, and announces each file by report.created', async () => {
    environment = testEnvironment();
    reports = await startWebhookReceiver();
    notifications = await startWebhookReceiver();
    api = await startApiApp(environment);
    const { tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:report']);
    const auth = { Authorization: `Bearer ${apiKey}` };
    const register = (body: object) => api!.http.post('/v1/webhook-endpoints').set(auth).send(body);
    const subscribed = await register({ url: reports.url, eventTypes: ['report.created'] });
    expect((await register({ url: notifications.url })).body.eventTypes).toEqual(['redec.notification.required']);
    expect((await api.http.put('/v1/tenant-settings').set(auth).send({ institutionCode: '0000000099', weeklyReports: true })).body).toMatchObject({ weeklyReports: true });
    const consent = await redecConsents(api, apiKey).grant();
    await api.close();

    // The Saturday that starts the week of the grant, and the run due the Saturday after, 01:00 local.
    const grantDay = localDateOf(consent.recordedAt);
    const weekStart = addCalendarDays(grantDay, -((dayOfWeek(grantDay) + 1) % 7));
    const scheduledAt = startOfLocalDay(addCalendarDays(weekStart, 7)) + HOUR;
    const shifted = { LEDGER_CLOCK_OFFSET_MS: String(scheduledAt + 10 * 60_000 - Date.now()) };
    api = await startApiApp(environment, shifted);
    await reports.waitForCount(2, 60_000);

    // Signed as every delivery; checked by hand, since the library also refuses a timestamp a week ahead of the real clock, which is the shifted service's.
    const key = Buffer.from(subscribed.body.secret.replace(/^whsec_/, ''), 'base64');
    const messages = reports.received.map(({ headers, body }) => {
      const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
      expect(String(headers['webhook-signature']).split(' ')).toContain(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
      expect(Number(headers['webhook-timestamp']) * 1000).toBeGreaterThan(scheduledAt);
      return JSON.parse(body) as { type: string; data: any };
    });
    expect(messages.map((m) => m.type)).toEqual(['report.created', 'report.created']);
    expect(messages.map((m) => m.data.kind).sort()).toEqual(['rdc30', 'rdc31']);
    for (const { data } of messages) expect({ start: data.period_start, end: data.period_end }).toEqual({ start: startOfLocalDay(weekStart), end: startOfLocalDay(addCalendarDays(weekStart, 7)) - 1 });

    const rdc30 = messages.find((m) => m.data.kind === 'rdc30')!.data;
    const content = await api.http
      .get(`/v1/redec/reports/${rdc30.report_id}/content`)
      .set(auth)
      .buffer(true)
      .parse(binaryBody);
    expect(content.status).toBe(200);
    expect(createHash('sha256').update(content.body as Buffer).digest('hex')).toBe(rdc30.content_sha256);
    expect((content.body as Buffer).toString('ascii')).toContain(consent.internalConsentCode);
    const [requested] = await api.store.readStream(redecStreams.report(tenantId, rdc30.report_id));
    expect(requested.metadata.actor).toBe('scheduler:weekly-reports');
    // An endpoint that did not name report.created sees nothing of it.
    expect(notifications.received.map((delivery) => JSON.parse(delivery.body).type)).toEqual(['redec.notification.required']);

    // Started again still past that Saturday: the catch-up runs and makes nothing new.
    await api.close();
    api = await startApiApp(environment, shifted);
    await waitUntil(async () => (await catchUps(api!)) >= 3, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(reports.received).toHaveLength(2);
    const requests = (await api.store.readAll()).filter((e) => e.type === 'ReportRequested');
    expect(requests).toHaveLength(2);
  });
});
