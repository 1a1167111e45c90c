import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { notFound, validationError } from '@ledger/platform';
import { CommandContext, toNewEvent } from '../command-context';
import { loadAggregate, loadAllAggregates } from '../load-aggregate';
import { Decision, runCommand } from '../run-command';
import { streamPrefixes, streams } from '../streams';
import { TenantPresentation, checkPresentation } from './presentation';

/** A tenant is one integrator (a bank); every other fact belongs to one. */
export interface TenantCreated {
  type: 'TenantCreated';
  data: { tenantId: string; name: string; createdAt: number };
}

/**
 * The tenant's settings as an operator last set them: the whole set each
 * time, so the newest fact is the settings in force.
 */
export interface TenantSettingsChanged {
  type: 'TenantSettingsChanged';
  data: { tenantId: string; settings: TenantSettings; changedAt: number };
}

export type TenantEvent = TenantCreated | TenantSettingsChanged;

/** What a bank configures for itself. */
export interface TenantSettings {
  /** The bank's code at the CMF (10 digits), the header of its regulatory reports; null until set. */
  institutionCode: string | null;
  /** Opt-in: RDC30 and RDC31 of each week, made every Saturday at 01:00 America/Santiago (decision 0034). */
  weeklyReports: boolean;
  /** Opt-in: RDC40 of each day, the events of REDEC disputes, made every day at 01:00 America/Santiago (decision 0074). */
  dailyRightsReport: boolean;
  /**
   * Opt-in: the deployment's scheduled erasure after the retention floor
   * (LEDGER_RETENTION_ERASE_SCHEDULE) erases this tenant's customers too
   * (decisions 0035 and 0040). Destroying data is the bank's call for its
   * own customers, and when it runs the operator's.
   */
  scheduledErasure: boolean;
  /** How the bank appears on the pages a person sees (the consent page); null until set, when the tenant's name is shown and no code has a meaning of the bank's. */
  presentation: TenantPresentation | null;
}

export interface Tenant {
  tenantId: string;
  name: string;
  createdAt: number;
  settings: TenantSettings;
  /** When the settings were last changed; null while they are the defaults. */
  settingsChangedAt: number | null;
  /** Since when weekly reports are on: a week scheduled before the tenant opted in is not made for it. Null while off. */
  weeklyReportsSince: number | null;
  /** Since when the daily RDC40 is on, likewise. */
  dailyRightsReportSince: number | null;
}

export const DEFAULT_TENANT_SETTINGS: TenantSettings = { institutionCode: null, weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null };

export function evolveTenant(state: Tenant | null, event: TenantEvent): Tenant | null {
  switch (event.type) {
    case 'TenantCreated':
      return { ...event.data, settings: DEFAULT_TENANT_SETTINGS, settingsChangedAt: null, weeklyReportsSince: null, dailyRightsReportSince: null };
    case 'TenantSettingsChanged': {
      // A setting added since the fact was recorded has its default.
      const settings = { ...DEFAULT_TENANT_SETTINGS, ...event.data.settings };
      const { changedAt } = event.data;
      // Since when each scheduled report is on: kept while it stays on, gone when it is turned off.
      const since = (on: boolean, before: number | null | undefined) => (on ? (before ?? changedAt) : null);
      return (
        state && {
          ...state,
          settings,
          settingsChangedAt: changedAt,
          weeklyReportsSince: since(settings.weeklyReports, state.weeklyReportsSince),
          dailyRightsReportSince: since(settings.dailyRightsReport, state.dailyRightsReportSince),
        }
      );
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * The settings after `change` (what it names; the rest stays): the CMF
 * institution code is exactly 10 digits, as the report headers carry it, and
 * the reports made on a schedule need one.
 */
export function decideConfigureTenant(tenant: Tenant | null, change: Partial<TenantSettings>, now: number): TenantEvent[] {
  if (!tenant) throw notFound('tenant');
  const settings = { ...tenant.settings, ...change };
  if (settings.presentation !== null) settings.presentation = checkPresentation(settings.presentation);
  if (settings.institutionCode !== null && !/^\d{10}$/.test(settings.institutionCode)) {
    throw validationError('institutionCode must be exactly 10 digits.', { errors: [{ field: 'institutionCode', reason: 'invalid_institution_code' }] });
  }
  for (const scheduled of ['weeklyReports', 'dailyRightsReport'] as const) {
    if (settings[scheduled] && settings.institutionCode === null) {
      throw validationError('Reports made on a schedule need the institution code their headers carry.', { errors: [{ field: scheduled, reason: 'institution_code_required' }] });
    }
  }
  if ((Object.keys(settings) as Array<keyof TenantSettings>).every((name) => JSON.stringify(settings[name]) === JSON.stringify(tenant.settings[name]))) return [];
  return [{ type: 'TenantSettingsChanged', data: { tenantId: tenant.tenantId, settings, changedAt: now } }];
}

/**
 * Changes the tenant's settings; setting what is already in force records
 * nothing. Through the one command path, so two concurrent changes cannot
 * both be kept unseen: the second is decided again on the first.
 */
export async function configureTenant(store: EventStore, tenantId: string, change: Partial<TenantSettings>, context: CommandContext): Promise<{ tenant: Tenant; position: number | null }> {
  const stream = streams.tenant(tenantId);
  const { result, position } = await runCommand(store, { ...context, tenantId }, async (reads): Promise<Decision<Tenant>> => {
    const state = await reads.fold(stream, evolveTenant);
    const events = decideConfigureTenant(state, change, context.now);
    if (events.length === 0) return { answer: state!, position: null };
    return { record: { streamId: stream, facts: events }, answer: events.reduce<Tenant | null>(evolveTenant, state)! };
  });
  return { tenant: result, position };
}

/** The name a person is shown for the bank: its presentation's, else the tenant's own name. */
export function tenantDisplayName(tenant: Tenant | null): string {
  return tenant?.settings.presentation?.displayName ?? tenant?.name ?? '';
}

export function decideCreateTenant(tenantId: string, name: string, now: number): TenantEvent[] {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) {
    throw validationError('tenant name must be 1 to 200 characters', { errors: [{ field: 'name', reason: 'invalid_length' }] });
  }
  return [{ type: 'TenantCreated', data: { tenantId, name: trimmed, createdAt: now } }];
}

export async function createTenant(store: EventStore, name: string, context: CommandContext): Promise<{ tenantId: string }> {
  const tenantId = randomUUID();
  const events = decideCreateTenant(tenantId, name, context.now);
  await store.append(
    streams.tenant(tenantId),
    events.map((e) => toNewEvent(e, { ...context, tenantId })),
    'no_stream',
  );
  return { tenantId };
}

export async function loadTenant(store: EventStore, tenantId: string): Promise<Tenant | null> {
  return (await loadAggregate(store, streams.tenant(tenantId), evolveTenant)).state;
}

/** Every tenant of the ledger, in the order they were created. */
export function listTenants(store: EventStore): Promise<Tenant[]> {
  return loadAllAggregates(store, streamPrefixes.tenant, evolveTenant);
}
