import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { configureTenant, createTenant, streams } from '@ledger/ledger';
import { bankingCalendar } from '../calendar/banking-calendar';
import { grant } from '../consent/testing/consent-fixtures';
import { redecStreams } from '../streams';
import { TenantDataKey } from '@ledger/platform';
import { sha256Hex } from '@ledger/platform';
import { completeReport, reportContentSha256, requestReport } from './reports';
import { openReportContent } from './report-content';
import { ReportLayouts, SHIPPED_REPORT_LAYOUTS } from './report-layout';

/** completeReport on a real store: the outcome recorded, and a file that cannot be written under its layout recorded as failed, naming the field only. */
describe('completing a report', () => {
  let dir: string;
  let store: SqliteEventStore;
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const stored: Buffer[] = [];
  const reportKey = TenantDataKey.generate('tenant', 'rk');
  const deps = (layouts: ReportLayouts) => ({
    reportKeys: { keyFor: async () => reportKey },
    store,
    layouts,
    calendar: bankingCalendar(),
    identifiers: { decrypt: async (_tenant: string, ciphertext: string) => ciphertext.replace(/^clear:/, '') },
    blobs: { put: async (_tenant: string, bytes: Buffer) => (stored.push(bytes), { contentSha256: sha256Hex(bytes), size: bytes.length }) },
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reports-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function reportOfOneConsent(layouts: ReportLayouts) {
    const operator = { actor: 'cli:test', correlationId: 'c', now };
    const { tenantId } = await createTenant(store, 'Banco', operator);
    await configureTenant(store, tenantId, { institutionCode: '0000000001' }, operator);
    const grantedAt = now - 2 * 86_400_000;
    const data = { ...grant.data, grantedAt, recordedAt: grantedAt + 1000 };
    const metadata = { tenantId, correlationId: 'c', recordedAt: grantedAt + 1000, schemaVersion: 1 };
    const identifiers = [{ system: 'cl-sii', type: 'rut', value: { hash: 'h', ciphertext: 'clear:12345678-5' }, verification: null }];
    const registered = { customerId: data.customerId, userReference: { hash: 'h', ciphertext: 'clear:ref' }, identifiers, registeredAt: grantedAt };
    await store.append(streams.customer(tenantId, data.customerId), [{ id: '22222222-2222-4222-8222-222222222222', type: 'CustomerRegistered', data: registered, metadata }], 'no_stream');
    await store.append(redecStreams.consent(tenantId, data.redecConsentId), [{ id: '11111111-1111-4111-8111-111111111111', type: 'ConsentGranted', data, metadata }], 'no_stream');
    const context = { ...operator, tenantId };
    const { report } = await requestReport({ store, layouts }, { kind: 'rdc30', periodStart: now - 7 * 86_400_000, periodEnd: now - 1 }, context);
    return { tenantId, reportId: report.request.reportId };
  }

  it('records ReportRendered with what the webhook needs and the customers the file names, and nothing more on a second run', async () => {
    const { tenantId, reportId } = await reportOfOneConsent(SHIPPED_REPORT_LAYOUTS);
    const done = await completeReport(deps(SHIPPED_REPORT_LAYOUTS), tenantId, reportId, () => now);
    const sealed = stored[stored.length - 1];
    expect(done).toMatchObject({
      status: 'ready',
      rendered: { reportId, kind: 'rdc30', layoutVersion: 'rdc30-2026.1', records: 1, contentBlob: sha256Hex(sealed), customerIds: [grant.data.customerId] },
    });
    // The file is stored and its hash recorded only under the report's key (decision 0045).
    const { content, contentSha256 } = await openReportContent(done!.rendered!, reportKey, sealed);
    expect(content.toString('ascii')).toContain('0123456785');
    expect(done!.rendered).not.toHaveProperty('contentSha256');
    expect(done!.rendered!.protectedContentSha256).toMatch(new RegExp(`^v2\\.${reportKey.id}\\.`));
    expect(await reportContentSha256({ keyOf: async () => reportKey }, tenantId, done!)).toBe(sha256Hex(content));
    expect(contentSha256).toBe(sha256Hex(content));
    const digest = Buffer.from(contentSha256, 'hex');
    const recorded = Buffer.from(JSON.stringify(await store.readStream(redecStreams.report(tenantId, reportId))));
    for (const kept of [sealed, recorded]) {
      for (const form of [Buffer.from(contentSha256), digest, Buffer.from(digest.toString('base64url')), Buffer.from('0123456785')]) expect(kept.includes(form)).toBe(false);
    }
    // Without the key, no hash to show.
    expect(await reportContentSha256({ keyOf: async () => null }, tenantId, done!)).toBeNull();

    await completeReport(deps(SHIPPED_REPORT_LAYOUTS), tenantId, reportId, () => now);
    expect((await store.readStream(redecStreams.report(tenantId, reportId))).map((e) => e.type)).toEqual(['ReportRequested', 'ReportRendered']);
  });

  it('records ReportFailed when a value does not fit its field, naming the field and not the value', async () => {
    const narrow = {
      ...SHIPPED_REPORT_LAYOUTS,
      rdc30: {
        ...SHIPPED_REPORT_LAYOUTS.rdc30,
        detail: SHIPPED_REPORT_LAYOUTS.rdc30.detail.map((f) => (f.name === 'internalConsentCode' ? { ...f, length: 19 } : f.start > 1 ? { ...f, start: f.start - 1 } : f)),
      },
    };
    const { tenantId, reportId } = await reportOfOneConsent(narrow);
    const failed = await completeReport(deps(narrow), tenantId, reportId, () => now);
    expect(failed).toMatchObject({ status: 'failed', failure: { reason: "field internalConsentCode: the value is longer than the field's 19 characters" } });
    expect(JSON.stringify(failed)).not.toContain(grant.data.internalConsentCode);
  });
});

/** requestReport on a real store: a command decided on the tenant's settings, recording a given report once. */
describe('requesting a report', () => {
  let dir: string;
  let store: SqliteEventStore;
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const operator = { actor: 'cli:test', correlationId: 'c', now };
  const period = { kind: 'rdc30' as const, periodStart: now - 7 * 86_400_000, periodEnd: now - 1 };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'report-requests-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function tenantWithInstitutionCode(institutionCode: string) {
    const { tenantId } = await createTenant(store, 'Banco', operator);
    await configureTenant(store, tenantId, { institutionCode }, operator);
    return { ...operator, tenantId };
  }

  it('records a given report once: asked again, it answers the report as recorded, with no position', async () => {
    const context = await tenantWithInstitutionCode('0000000001');
    const first = await requestReport({ store, layouts: SHIPPED_REPORT_LAYOUTS }, period, context, 'rep-1');
    expect(first.position).toBeGreaterThan(0);
    const again = await requestReport({ store, layouts: SHIPPED_REPORT_LAYOUTS }, period, { ...context, now: now + 1 }, 'rep-1');
    expect(again).toEqual({ report: first.report, position: null });
    expect(await store.readStream(redecStreams.report(context.tenantId, 'rep-1'))).toHaveLength(1);
  });

  it("decides again on the tenant's settings when they changed between its decision and its fact", async () => {
    const context = await tenantWithInstitutionCode('0000000001');
    const headPosition = store.headPosition.bind(store);
    // The settings change lands while the request reads the store's head, after it read the tenant.
    jest.spyOn(store, 'headPosition').mockImplementationOnce(async () => {
      await configureTenant(store, context.tenantId, { institutionCode: '0000000002' }, operator);
      return headPosition();
    });
    const { report } = await requestReport({ store, layouts: SHIPPED_REPORT_LAYOUTS }, period, context, 'rep-1');
    expect(report.request.institutionCode).toBe('0000000002');
    const [requested] = await store.readStream(redecStreams.report(context.tenantId, 'rep-1'));
    expect(requested.data).toMatchObject({ institutionCode: '0000000002' });
  });
});
