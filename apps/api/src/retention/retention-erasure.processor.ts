import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable, listTenants } from '@ledger/ledger';
import { CLOCK, Clock } from '@ledger/platform';
import type { JobProcessor } from '@ledger/queues';
import { ErasureResult, eraseCustomers } from '@ledger/redec';

/** The scheduled run carries nothing: it erases in every tenant that opted in, as of the service clock when it runs. */
export type RetentionErasureJob = Record<string, never>;

/**
 * The scheduled erasure (LEDGER_RETENTION_ERASE_SCHEDULE, decision 0035):
 * `ledger retention erase` for every tenant whose settings opt in
 * (`scheduledErasure`), one after the other; the others are left to their
 * operators' commands.
 * Safe to repeat, as every job must be: erasing twice erases nothing more.
 */
@Injectable()
export class RetentionErasureProcessor implements JobProcessor<RetentionErasureJob, ErasureResult[]> {
  private readonly logger = new Logger('RetentionErasure');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CUSTOMER_KEY_TABLE) private readonly keyTable: CustomerKeyTable,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async process(): Promise<ErasureResult[]> {
    const results: ErasureResult[] = [];
    for (const { tenantId } of (await listTenants(this.store)).filter((tenant) => tenant.settings.scheduledErasure)) {
      const context = { actor: 'worker:retention-erasure', correlationId: randomUUID(), now: this.clock.now() };
      const result = await eraseCustomers({ store: this.store, keyTable: this.keyTable, blobs: this.blobs }, tenantId, { dryRun: false }, context);
      // Ids only: which customers, never what they were.
      if (result.erasedCustomers.length > 0 || result.skippedOnHold.length > 0) this.logger.log(JSON.stringify(result));
      results.push(result);
    }
    return results;
  }
}
