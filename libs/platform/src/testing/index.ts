import { DomainError } from '../errors';
import { customerDataErased } from '../identifier-protection';
import { TenantDataKey, type CustomerKeySource, type TenantKeySource } from '../keys/tenant-data-key';

/** The DomainError a rule throws, for specs that assert on its code, reason and field errors. */
export function refusalOf(decide: () => unknown): DomainError {
  try {
    decide();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the rule accepted');
}

/** Tenant data keys made up on first use and kept in memory, for specs and test apps that have no keyring. */
export function ephemeralTenantKeys(): TenantKeySource {
  const keys = new Map<string, TenantDataKey>();
  return {
    dataKey: async (tenantId) => {
      let key = keys.get(tenantId);
      if (!key) {
        key = TenantDataKey.generate(tenantId);
        keys.set(tenantId, key);
      }
      return key;
    },
  };
}

/** Customers' data keys made up on first use and kept in memory, with `erase` to destroy one, for specs that have no key table. */
export function ephemeralCustomerKeys(): CustomerKeySource & { erase(tenantId: string, customerId: string): void } {
  const keys = new Map<string, TenantDataKey | null>();
  return {
    keyFor: async (tenantId, customerId) => {
      const name = `${tenantId}/${customerId}`;
      if (!keys.has(name)) keys.set(name, TenantDataKey.generate(tenantId, 'ck'));
      const key = keys.get(name);
      if (!key) throw customerDataErased();
      return key;
    },
    keyNamed: async (tenantId, dataKeyId) => [...keys.values()].find((key) => key?.tenantId === tenantId && key.id === dataKeyId) ?? null,
    erase: (tenantId, customerId) => void keys.set(`${tenantId}/${customerId}`, null),
  };
}
export * from './given-when-then';
export { eventLoopTurnsDuring } from './event-loop-turns';

/** A version 7 UUID as `timeOrderedId` writes it (lowercase, RFC 9562's version and variant bits). */
export const TIME_ORDERED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The instant (epoch ms) a version 7 UUID was made at: its first 48 bits. */
export function instantOfTimeOrderedId(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
