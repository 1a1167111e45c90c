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
  /** Reports' wrapped keys by report id; null once destroyed. */
  let reportKeys: Map<string, string | null>;
  const context = { actor: 'cli:test', correlationId: 'c', now };
  const deps = () => ({
    store,
    keyTable: {
      find: async (_t: string, customerId: string) => keys.get(customerId) ?? null,
      destroy: async (_t: string, customerId: string, erasedAt: number) => void keys.set(customerId, { ...keys.get(customerId)!, wrappedKey: null, erasedAt }),
      findReportKey: async (_t: string, reportId: string) => (reportKeys.has(reportId) ? { ...reportKey(reportId), wrappedKey: reportKeys.get(reportId)! } : null),
      destroyReportKey: async (_t: string, reportId: string) => void reportKeys.set(reportId, null),
    },
    // These customers' consents name no blob; what is deleted is reports' contents (customers' blobs: test/data-lifecycle.e2e-spec.ts).
    blobs: {
      get: async () => null,
      put: async () => ({ contentSha256: '', size: 0 }),
      delete: async (_t: string, contentSha256: string) => (deleted.push(contentSha256), true),
    },
  });
  const append = (stream: string, ...events: Array<{ type: string; data: object }>) =>
    store.append(stream, events.map((event) => toNewEvent(event, { ...context, tenantId, now: grantedAt })), 'any');
  const reportKey = (reportId: string) => ({ tenantId, reportId, dataKeyId: 'rk_1', tenantDataKeyId: 'dk', wrappedKey: null, createdAt: grantedAt, erasedAt: null });
  /** A rendered report whose content is in blob `blob`: sealed under its own key (decision 0045), or `legacy`, named by its plain hash, as before it. */
  const report = (reportId: string, kind: 'rdc30' | 'rdc31', blob: string, customerIds?: string[], legacy = false) => {
    const period = { reportId, kind, periodStart: grantedAt - 7 * DAY, periodEnd: grantedAt - 1, layoutVersion: 'v' };
    const content = legacy ? { contentSha256: blob } : { protectedContentSha256: 'v2.rk_1.iv.tag.ct', contentBlob: blob };
    if (!legacy) reportKeys.set(reportId, `wrapped-${reportId}`);
    const rendered: ReportRendered['data'] = { ...period, ...content, size: 10, records: 1, metadata: {}, customerIds, renderedAt: grantedAt };
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
    reportKeys = new Map();
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

  it("records ReportContentErased, deletes the bytes of a file naming the erased customer and destroys the report's key; keeps the others; a dry run changes nothing", async () => {
    await report('rep-named', 'rdc30', sha('a'), ['cus-1', 'cus-2']);
    await report('rep-other', 'rdc30', sha('b'), ['cus-2']);
    await report('rep-accesses', 'rdc31', sha('c'), []);

    const dryRun = await eraseCustomers(deps(), tenantId, { dryRun: true }, context);
    expect(dryRun).toMatchObject({ erasedCustomers: ['cus-1'], erasedReports: ['rep-named'] });
    expect(await reportFacts('rep-named')).toEqual(['ReportRequested', 'ReportRendered']);
    expect(reportKeys.get('rep-named')).toBe('wrapped-rep-named');

    const result = await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    expect(result).toMatchObject({ erasedCustomers: ['cus-1'], erasedReports: ['rep-named'] });
    const [erased] = (await store.readStream(redecStreams.report(tenantId, 'rep-named'))).slice(2);
    // No hash of the file in the fact: it would outlive the key that seals the one ReportRendered keeps (decision 0045).
    expect(erased).toMatchObject({ type: 'ReportContentErased', data: { reportId: 'rep-named', customerIds: ['cus-1'], erasedAt: now } });
    expect(erased.data).not.toHaveProperty('contentSha256');
    expect(deleted).toEqual([sha('a')]);
    expect(Object.fromEntries(reportKeys)).toEqual({ 'rep-named': null, 'rep-other': 'wrapped-rep-other', 'rep-accesses': 'wrapped-rep-accesses' });
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
    await report('rep-legacy', 'rdc30', sha('e'), undefined, true);
    await report('rep-new', 'rdc30', sha('e'), ['cus-2'], true);
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

  it('deletes the bytes and destroys the key of a content recorded erased by a run interrupted before it did', async () => {
    await report('rep-named', 'rdc30', sha('a'), ['cus-1']);
    await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    deleted = [];
    reportKeys.set('rep-named', 'wrapped-rep-named');
    await eraseCustomers(deps(), tenantId, { dryRun: false }, context);
    expect(deleted).toEqual([sha('a')]);
    expect(reportKeys.get('rep-named')).toBeNull();
  });

  it("erases a file stored before decision 0045 by the blob its plain hash names, recording no hash again", async () => {
    await report('rep-legacy', 'rdc30', sha('f'), ['cus-1'], true);
    expect((await eraseCustomers(deps(), tenantId, { dryRun: false }, context)).erasedReports).toEqual(['rep-legacy']);
    expect(deleted).toEqual([sha('f')]);
    const [erased] = (await store.readStream(redecStreams.report(tenantId, 'rep-legacy'))).slice(2);
    expect(erased.data).not.toHaveProperty('contentSha256');
  });
  describe('when the facts of an erasable customer change between its verdict and its fact', () => {
    /** The dependencies, with `race` run once just as the erasure of cus-1 is decided (when it looks up its key). */
    const racing = (race: () => Promise<unknown>) => {
      const base = deps();
      let raced = false;
      const find = async (t: string, customerId: string) => {
        if (!raced) {
          raced = true;
          await race();
        }
        return base.keyTable.find(t, customerId);
      };
      return { ...base, keyTable: { ...base.keyTable, find } };
    };
    const customerFacts = async () => (await store.readStream(streams.customer(tenantId, 'cus-1'))).map((e) => e.type);

    it('judges it again on a legal hold placed meanwhile, and passes it by', async () => {
      const hold = { type: 'LegalHoldPlaced', data: { customerId: 'cus-1', legalHoldId: 'hold-1', reason: 'litigation', reference: 'case-1', placedAt: now } };
      const result = await eraseCustomers(racing(() => append(streams.customer(tenantId, 'cus-1'), hold)), tenantId, { dryRun: false }, context);
      expect(result).toMatchObject({ erasedCustomers: [], skippedOnHold: ['cus-1'] });
      expect(await customerFacts()).toEqual(['CustomerRegistered', 'LegalHoldPlaced']);
      expect(keys.get('cus-1')?.wrappedKey).toBe('w');
    });

    it('judges it again on a consent changed meanwhile, and keeps it while the consent keeps it', async () => {
      // A credit granted before the revocation keeps the consent (docs/reference/states.md, "Consent status"): it is no longer past its floor.
      const extended = facts.extension('ext-1', 'op-1', revokedAt - DAY);
      const result = await eraseCustomers(racing(() => append(redecStreams.consent(tenantId, 'con-1'), extended)), tenantId, { dryRun: false }, context);
      expect(result).toMatchObject({ erasedCustomers: [], skippedOnHold: [] });
      expect(await customerFacts()).toEqual(['CustomerRegistered']);
      expect(keys.get('cus-1')?.wrappedKey).toBe('w');
    });
  });
});
