import { Clock, CustomerKeySource, TenantDataKey, TenantKeySource, customerDataErased } from '@ledger/platform';
import { CustomerKeyTable } from './customer-key-table.port';

/**
 * Customers' data keys (decision 0035): created on first use, wrapped by the
 * tenant's data key in the key table, unwrapped on every use. Nothing is
 * cached: another process (`ledger retention erase`) may destroy a key at any
 * moment, and a destroyed key must stop opening and sealing at once in every
 * process; an unwrap is one indexed read and one AES-GCM operation.
 */
export class CustomerKeyring implements CustomerKeySource {
  constructor(
    private readonly tenantKeys: TenantKeySource,
    private readonly table: CustomerKeyTable,
    private readonly clock: Clock,
  ) {}

  async keyFor(tenantId: string, customerId: string): Promise<TenantDataKey> {
    const tenantKey = await this.tenantKeys.dataKey(tenantId);
    let recorded = await this.table.find(tenantId, customerId);
    if (!recorded) {
      const created = TenantDataKey.generate(tenantId, 'ck');
      // Two processes creating at once: the table keeps one row and both use it.
      recorded = await this.table.insert({
        tenantId,
        customerId,
        dataKeyId: created.id,
        tenantDataKeyId: tenantKey.id,
        wrappedKey: tenantKey.wrapCustomerKey(customerId, created),
        createdAt: this.clock.now(),
        erasedAt: null,
      });
    }
    if (recorded.wrappedKey === null || recorded.dataKeyId === null) throw customerDataErased();
    return tenantKey.unwrapCustomerKey(customerId, recorded.dataKeyId, recorded.wrappedKey);
  }

  async keyNamed(tenantId: string, dataKeyId: string): Promise<TenantDataKey | null> {
    const recorded = await this.table.findByKeyId(tenantId, dataKeyId);
    if (!recorded?.wrappedKey) return null;
    return (await this.tenantKeys.dataKey(tenantId)).unwrapCustomerKey(recorded.customerId, dataKeyId, recorded.wrappedKey);
  }
}
