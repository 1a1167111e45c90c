import type { QueueDeclaration } from '@ledger/queues';
import { DELIVERY_ATTEMPTS, DeliveryFailed, WebhookJob, deliveryDelayMs } from '@ledger/webhooks';
import { DeliverWebhookProcessor } from './deliver-webhook.processor';

/**
 * `redec.notification.required` deliveries (docs/architecture.md, "Queues,
 * webhooks and artifacts"). Retries follow the documented schedule of about a
 * day (retry-schedule.ts), or the receiver's Retry-After on 429 and 503;
 * exhausted jobs stay in the failed set for an operator to inspect and
 * redeliver.
 */
export const webhookDeliveriesQueue: QueueDeclaration<WebhookJob, void> = {
  name: 'webhook-deliveries',
  processor: DeliverWebhookProcessor,
  // Deliveries wait on receivers, not on this machine's CPU.
  concurrency: 50,
  defaultJobOptions: {
    attempts: DELIVERY_ATTEMPTS,
    backoff: { type: 'custom' },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: false,
  },
  backoffStrategy: (attemptsMade, _type, error) =>
    error instanceof DeliveryFailed && error.retryAfterMs !== null ? error.retryAfterMs : deliveryDelayMs(attemptsMade),
};
