import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { DomainError } from '@ledger/platform';
import { refusalOf } from '@ledger/platform/testing';
import { TenantEvent, configureTenant, createTenant, decideConfigureTenant, decideCreateTenant, evolveTenant, loadTenant } from './tenant';

describe('tenants', () => {
  it('creates a tenant with a trimmed name', () => {
    expect(decideCreateTenant('t1', '  Banco Uno ', 5)).toEqual([{ type: 'TenantCreated', data: { tenantId: 't1', name: 'Banco Uno', createdAt: 5 } }]);
  });

  it.each(['', '   ', 'x'.repeat(201)])('refuses the name %j', (name) => {
    expect(() => decideCreateTenant('t1', name, 5)).toThrow(DomainError);
  });
});

describe('tenant settings', () => {
  const tenant = evolveTenant(null, { type: 'TenantCreated', data: { tenantId: 't1', name: 'Banco Uno', createdAt: 5 } });

  it('start without an institution code, and record a change of it', () => {
    expect(tenant?.settings).toEqual({ institutionCode: null, weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null });
    expect(decideConfigureTenant(tenant, { institutionCode: '0000000001' }, 9)).toEqual([
      { type: 'TenantSettingsChanged', data: { tenantId: 't1', settings: { institutionCode: '0000000001', weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null }, changedAt: 9 } },
    ]);
  });

  it('opt in to the scheduled erasure, and read a change recorded before that setting existed as off', () => {
    const [optedIn] = decideConfigureTenant(tenant, { scheduledErasure: true }, 9);
    expect(optedIn).toMatchObject({ data: { settings: { institutionCode: null, weeklyReports: false, scheduledErasure: true } } });
    expect(decideConfigureTenant(evolveTenant(tenant, optedIn), { scheduledErasure: true }, 10)).toEqual([]);
    const older = { type: 'TenantSettingsChanged', data: { tenantId: 't1', settings: { institutionCode: '0000000001', weeklyReports: false }, changedAt: 9 } } as TenantEvent;
    expect(evolveTenant(evolveTenant(tenant, optedIn), older)?.settings).toEqual({ institutionCode: '0000000001', weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null });
  });

  it('record nothing when the settings are already in force', () => {
    const configured = evolveTenant(tenant, decideConfigureTenant(tenant, { institutionCode: '0000000001' }, 9)[0] as TenantEvent);
    expect(configured?.settingsChangedAt).toBe(9);
    expect(decideConfigureTenant(configured, { institutionCode: '0000000001' }, 10)).toEqual([]);
  });

  it.each(['123456789', '12345678901', '00000000a1', ' 000000001'])('refuse the institution code %j, naming the field only', (institutionCode) => {
    expect(refusalOf(() => decideConfigureTenant(tenant, { institutionCode }, 9)).errors).toEqual([{ field: 'institutionCode', reason: 'invalid_institution_code' }]);
  });

  it('turn weekly reports on only with an institution code, and remember since when they are on', () => {
    expect(refusalOf(() => decideConfigureTenant(tenant, { weeklyReports: true }, 9)).errors).toEqual([{ field: 'weeklyReports', reason: 'institution_code_required' }]);
    const apply = (state: typeof tenant, change: Parameters<typeof decideConfigureTenant>[1], now: number) =>
      decideConfigureTenant(state, change, now).reduce<typeof tenant>((s, e) => evolveTenant(s, e), state);
    const on = apply(apply(tenant, { institutionCode: '0000000001', weeklyReports: true }, 9), { institutionCode: '0000000002' }, 12);
    expect(on).toMatchObject({ settings: { institutionCode: '0000000002', weeklyReports: true }, weeklyReportsSince: 9 });
    expect(apply(on, { weeklyReports: false }, 15)?.weeklyReportsSince).toBeNull();
  });

  it('turn the daily RDC40 on only with an institution code, and remember since when it is on, apart from the weekly reports', () => {
    expect(refusalOf(() => decideConfigureTenant(tenant, { dailyRightsReport: true }, 9)).errors).toEqual([{ field: 'dailyRightsReport', reason: 'institution_code_required' }]);
    const apply = (state: typeof tenant, change: Parameters<typeof decideConfigureTenant>[1], now: number) =>
      decideConfigureTenant(state, change, now).reduce<typeof tenant>((s, e) => evolveTenant(s, e), state);
    const on = apply(apply(tenant, { institutionCode: '0000000001', dailyRightsReport: true }, 9), { weeklyReports: true }, 12);
    expect(on).toMatchObject({ settings: { dailyRightsReport: true, weeklyReports: true }, dailyRightsReportSince: 9, weeklyReportsSince: 12 });
    expect(apply(on, { dailyRightsReport: false }, 15)).toMatchObject({ dailyRightsReportSince: null, weeklyReportsSince: 12 });
  });

  it('refuse a tenant that does not exist', () => {
    expect(refusalOf(() => decideConfigureTenant(null, { institutionCode: '0000000001' }, 9)).code).toBe('NOT_FOUND');
  });
});

// Integration: the real SQLite store, for what the decider cannot show: concurrent changes of one tenant's settings.
describe('tenant settings on the SQLite store', () => {
  let dir: string;
  let store: SqliteEventStore;
  const operator = { actor: 'cli:test', correlationId: 'c', now: 100 };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenant-settings-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps both of two concurrent changes of different settings: the second is decided on the first', async () => {
    const { tenantId } = await createTenant(store, 'Banco Uno', operator);
    await Promise.all([configureTenant(store, tenantId, { institutionCode: '0000000001' }, operator), configureTenant(store, tenantId, { scheduledErasure: true }, operator)]);
    expect((await loadTenant(store, tenantId))?.settings).toEqual({ institutionCode: '0000000001', weeklyReports: false, dailyRightsReport: false, scheduledErasure: true, presentation: null });
  });
});
