import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { validationError } from '@ledger/platform';
import { CommandContext, toNewEvent } from '../command-context';
import { loadAggregate } from '../load-aggregate';
import { streams } from '../streams';

/** A tenant is one integrator (a bank); every other fact belongs to one. */
export interface TenantCreated {
  type: 'TenantCreated';
  data: { tenantId: string; name: string; createdAt: number };
}

export type TenantEvent = TenantCreated;

export interface Tenant {
  tenantId: string;
  name: string;
  createdAt: number;
}

export function evolveTenant(_state: Tenant | null, event: TenantEvent): Tenant {
  return { ...event.data };
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
