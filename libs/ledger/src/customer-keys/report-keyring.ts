import { Clock, ReportKeySource, TenantDataKey, TenantKeySource, gone } from '@ledger/platform';
import { CustomerKeyTable } from './customer-key-table.port';

/**
 * Reports' keys (decision 0045): one random key per report, created when the
 * file is rendered, wrapped by the tenant's data key in the key table, and
 * destroyed with the report's stored content. Nothing is cached, for the
 * reason CustomerKeyring gives: an erasure in another process must stop
 * every process from opening the report at once.
 */
export class ReportKeyring implements ReportKeySource {
  constructor(
    private readonly tenantKeys: TenantKeySource,
    private readonly table: Pick<CustomerKeyTable, 'findReportKey' | 'insertReportKey'>,
    private readonly clock: Clock,
  ) {}

  async keyFor(tenantId: string, reportId: string): Promise<TenantDataKey> {
    const tenantKey = await this.tenantKeys.dataKey(tenantId);
    let recorded = await this.table.findReportKey(tenantId, reportId);
    if (!recorded) {
      const created = TenantDataKey.generate(tenantId, 'rk');
      // A retried render job, or two at once: the table keeps one row and every attempt uses it.
      recorded = await this.table.insertReportKey({
        tenantId,
        reportId,
        dataKeyId: created.id,
        tenantDataKeyId: tenantKey.id,
        wrappedKey: tenantKey.wrapReportKey(reportId, created),
        createdAt: this.clock.now(),
        erasedAt: null,
      });
    }
    if (recorded.wrappedKey === null || recorded.dataKeyId === null) throw reportContentErased();
    return tenantKey.unwrapReportKey(reportId, recorded.dataKeyId, recorded.wrappedKey);
  }

  async keyOf(tenantId: string, reportId: string): Promise<TenantDataKey | null> {
    const recorded = await this.table.findReportKey(tenantId, reportId);
    if (!recorded?.wrappedKey || !recorded.dataKeyId) return null;
    return (await this.tenantKeys.dataKey(tenantId)).unwrapReportKey(reportId, recorded.dataKeyId, recorded.wrappedKey);
  }
}

export function reportContentErased(): Error {
  return gone('report_content_erased', 'The file named a data subject whose data was erased after the retention floor; its bytes and their hash were destroyed.');
}
