import { Inject, Injectable } from '@nestjs/common';
import { type Job, UnrecoverableError } from 'bullmq';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { ReportKeyring } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection, LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { JobProcessor } from '@ledger/queues';
import { EndpointGone, WebhookDeliveryMetrics, WebhookJob, deliverWebhook, disableWebhookEndpoint, recordFailedDelivery } from '@ledger/webhooks';
import { egressPolicyOf } from './egress-policy';

/**
 * One delivery attempt per run. A failure is thrown so BullMQ retries it on
 * the schedule; a 410 disables the endpoint and ends the job for good. Jobs
 * run at least once, so a receiver may see a message twice and must
 * deduplicate on `webhook-id` (Standard Webhooks).
 */
@Injectable()
export class DeliverWebhookProcessor implements JobProcessor<WebhookJob, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    private readonly protection: IdentifierProtection,
    private readonly reportKeys: ReportKeyring,
    private readonly metrics: WebhookDeliveryMetrics,
  ) {}

  async process(job: Job<WebhookJob, void>, signal: AbortSignal): Promise<void> {
    const deps = { store: this.store, protection: this.protection, reportKeys: this.reportKeys, egress: egressPolicyOf(this.config), now: () => this.clock.now(), metrics: this.metrics };
    const attempt = job.attemptsMade + 1;
    try {
      await deliverWebhook(deps, job.data, attempt, signal);
    } catch (error) {
      const gone = error instanceof EndpointGone;
      if (gone) {
        const { tenantId, endpointId } = job.data;
        await disableWebhookEndpoint(this.store, endpointId, 'gone', { tenantId, actor: 'worker:webhooks', correlationId: job.data.message.id, now: this.clock.now() });
      }
      // Indexed before the queue moves the job to its failed set, so that a redelivery of the endpoint's failures finds it.
      if (gone || attempt >= (job.opts.attempts ?? 1)) await recordFailedDelivery(this.store, { id: job.id!, data: job.data }, this.clock.now());
      throw gone ? new UnrecoverableError((error as Error).message) : error;
    }
  }
}
