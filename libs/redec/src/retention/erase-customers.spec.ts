import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '@ledger/event-store';
import { CustomerKeyRecord, streams, toNewEvent } from '@ledger/ledger';
import { addYears } from '../consent/regulatory-representation';
import { facts, grant, grantedAt } from '../consent/testing/consent-fixtures';
import { ReportEvent, ReportRendered } from '../reports/report.events';
import { redecStreams } from '../streams';
import { eraseCustomers, retentionStatus } from './erase-customers';

const DAY = 86_400_000;
const revokedAt = grantedAt + DAY;
const now = addYears(revokedAt, 5) + DAY;
const tenantId = randomUUID();
const sha = (c: string) => c.repeat(64);

/**
 * eraseCustomers on a real store, for the stored contents of reports
 * (decision 0040): cus-1 is erasable (its only consent revoked more than 5
 * years ago), cus-2 is kept (no consent).
 */
describe('erasing the report contents that name an erased customer', () => {
  let dir: string;
  let store: SqliteEventStore;
  let deleted: string[];
  let keys: Map<string, CustomerKeyRecord>;
  const context = { actor: 'cli:test', correlationId: 'c', now };
  const deps = () => ({
    store,
    keyTable: {
      find: async (_t: string, customerId: string) => keys.get(customerId) ?? null,
      destroy: async (_t: string, customerId: string, erasedAt: number) => void keys.set(customerId, { ...keys.get(customerId)!, wrappedKey: null, erasedAt }),
    },
    blobs: { delete: async (_t: string, contentSha256: string) => (deleted.push(contentSha256), true) },
  });
  const append = (stream: string, ...events: Array<{ type: string; data: object }>) =>
    store.append(stream, events.map((event) => toNewEvent(event, { ...context, tenantId, now: grantedAt })), 'any');
  const report = (reportId: string, kind: 'rdc30' | 'rdc31', contentSha256: string, customerIds?: string[]) => {
    const period = { reportId, kind, periodStart: grantedAt - 7 * DAY, periodEnd: grantedAt - 1, layoutVersion: 'v' };
    const rendered: ReportRendered['data'] = { ...period, contentSha256, size: 10, records: 1, metadata: {}, customerIds, renderedAt: grantedAt };
    const events: ReportEvent[] = [
      { type: 'ReportRequested', data: { ...period, institutionCode: '0000000001', asOfPosition: 1, requestedAt: grantedAt } },
      { type: 'ReportRendered', data: rendered },
    ];
    return append(redecStreams.report(tenantId, reportId), ...events);
  };
  const reportFacts = async (reportId: string) => (await store.readStream(redecStreams.report(tenantId, reportId))).map((e) => e.type);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'erase-reports-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    deleted = [];
    keys = new Map(['cus-1', 'cus-2'].map((customerId) => [customerId, { tenantId, customerId, dataKeyId: 'ck_1', tenantDataKeyId: 'dk', wrappedKey: 'w', createdAt: grantedAt, erasedAt: null }]));
    for (const customerId of ['cus-1', 'cus-2']) {
      const userReference = { hash: 'h', ciphertext: 'v2.ck_0123456789abcdef.iv.tag.ct' };
      await append(streams.customer(tenantId, customerId), { type: 'CustomerRegistered', data: { customerId, userReference, identifiers: [], registeredAt: grantedAt } });
    }
    await append(redecStreams.consent(tenantId, 'con-1'), grant, facts.revocation(revokedAt, true));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records ReportContentErased and deletes the bytes of a file naming the erased customer; keeps the others; a dry run changes nothing', async () => {
    await report('rep-named', 'rdc30', sha('a'), ['cus-1', 'cus-2']);
    await report('rep-other', 'rdc30', sha('b'), ['cus-2']);
    await report('rep-accesses', 'rdc31', sha('c'), []);

    const dryRun = await eraseCustomers(deps(), tenantId, { dryRun: true }, context);
    expect(dryRun).toMatchObject({ erasedCustomers: ['cus-1'], erasedReports: ['rep-named'] });
    expect(await reportFacts('rep-named')).toEqual(['ReportRequested', 'ReportRendered']);

    const result = await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    expect(result).toMatchObject({ erasedCustomers: ['cus-1'], erasedReports: ['rep-named'] });
    const [erased] = (await store.readStream(redecStreams.report(tenantId, 'rep-named'))).slice(2);
    expect(erased).toMatchObject({ type: 'ReportContentErased', data: { reportId: 'rep-named', contentSha256: sha('a'), customerIds: ['cus-1'], erasedAt: now } });
    expect(deleted).toEqual([sha('a')]);
    expect(await reportFacts('rep-other')).toEqual(['ReportRequested', 'ReportRendered']);

    // Again: nothing new is recorded.
    expect((await eraseCustomers(deps(), tenantId, { dryRun: false }, context)).erasedReports).toEqual([]);
    expect(await reportFacts('rep-named')).toEqual(['ReportRequested', 'ReportRendered', 'ReportContentErased']);
  });

  it('erases a file rendered after the erasure that still named the customer (rendered while the erasure ran)', async () => {
    await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    await report('rep-late', 'rdc30', sha('d'), ['cus-1']);
    expect((await eraseCustomers(deps(), tenantId, { dryRun: false }, context)).erasedReports).toEqual(['rep-late']);
    expect(deleted).toEqual([sha('d')]);
  });

  it('keeps bytes another report still keeps: an RDC30 from before decision 0040 and its re-rendering with the same bytes', async () => {
    await report('rep-legacy', 'rdc30', sha('e'));
    await report('rep-new', 'rdc30', sha('e'), ['cus-2']);
    expect((await eraseCustomers(deps(), tenantId, { dryRun: false }, context)).erasedReports).toEqual(['rep-legacy']);
    expect(deleted).toEqual([]);
    expect(await reportFacts('rep-new')).toEqual(['ReportRequested', 'ReportRendered']);
  });

  it('erases a customer recorded before decision 0035 as far as it can, and says its values stay under the tenant key', async () => {
    const underTenantKey = { hash: 'h', ciphertext: 'v2.dk_0123456789abcdef.iv.tag.ct' };
    const identifier = { system: 'cl-sii', type: 'rut', value: underTenantKey, verification: null };
    await append(streams.customer(tenantId, 'cus-2'), { type: 'CustomerIdentifierLinked', data: { customerId: 'cus-2', identifier, linkedAt: grantedAt } });
    await append(redecStreams.consent(tenantId, 'con-2'), { ...grant, data: { ...grant.data, redecConsentId: 'con-2', customerId: 'cus-2' } }, { ...facts.revocation(revokedAt, true), data: { ...facts.revocation(revokedAt, true).data, redecConsentId: 'con-2' } });
    expect(await retentionStatus(store, tenantId, now)).toMatchObject({ erasableCustomers: ['cus-1', 'cus-2'], sealedUnderTenantKey: ['cus-2'] });
    expect(await eraseCustomers(deps(), tenantId, { dryRun: true }, context)).toMatchObject({ erasedCustomers: ['cus-1', 'cus-2'], sealedUnderTenantKey: ['cus-2'] });
    expect(await eraseCustomers(deps(), tenantId, { dryRun: false }, context)).toMatchObject({ erasedCustomers: ['cus-1', 'cus-2'], sealedUnderTenantKey: ['cus-2'] });
    // Erased, and still listed: what the master key opens stays until the tenant key generation is retired.
    expect(await retentionStatus(store, tenantId, now)).toMatchObject({ erasedCustomers: 2, sealedUnderTenantKey: ['cus-2'] });
  });

  it('deletes the bytes of a content recorded erased by a run interrupted before it deleted them', async () => {
    await report('rep-named', 'rdc30', sha('a'), ['cus-1']);
    await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    deleted = [];
    await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    expect(deleted).toEqual([sha('a')]);
  });
});
