import { DomainError } from '../errors';
import { TenantDataKey, type TenantKeySource } from '../keys/tenant-data-key';

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
