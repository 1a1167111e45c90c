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
