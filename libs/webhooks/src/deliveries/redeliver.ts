import { EventStore } from '@ledger/event-store';
import { conflict, notFound } from '@ledger/platform';
import { loadWebhookEndpoints } from '../endpoints/webhook-endpoints';
import { findEndpoint } from '../endpoints/webhook-endpoints.decider';
import { notificationFor } from '../notification-payload';
import { webhookStreams } from '../streams';
import { WebhookJob } from './deliver-webhook';
import { WebhookDeliveryAttempted } from './webhook-delivery.events';

/** What redelivery needs of the BullMQ queue of deliveries. */
export interface DeliveryQueue {
  getFailed(start: number, end: number): Promise<Array<FailedDelivery | undefined>>;
  add(name: string, data: WebhookJob, options: { jobId: string }): Promise<unknown>;
}

export interface FailedDelivery {
  data: WebhookJob;
  finishedOn?: number;
  retry(state?: 'failed'): Promise<void>;
}

const PAGE = 500;

/**
 * Puts back to work every delivery of an endpoint that exhausted its retries
 * (or was refused for good) since `since`: each starts a new round of
 * attempts with the same message, so the same `webhook-id`. `tenantId` scopes
 * the search for the API; the operator CLI searches every tenant.
 */
export async function redeliverFailed(queue: DeliveryQueue, filter: { endpointId: string; since: number; tenantId?: string }): Promise<number> {
  const chosen: FailedDelivery[] = [];
  for (let start = 0; ; start += PAGE) {
    const page = await queue.getFailed(start, start + PAGE - 1);
    for (const job of page) {
      if (!job || job.data.endpointId !== filter.endpointId || (filter.tenantId !== undefined && job.data.tenantId !== filter.tenantId)) continue;
      if ((job.finishedOn ?? 0) >= filter.since) chosen.push(job);
    }
    if (page.length < PAGE) break;
  }
  // Retried after the scan: a retried job leaves the failed set, which would shift the pages under the scan.
  for (const job of chosen) await job.retry('failed');
  return chosen.length;
}

/**
 * Delivers one message to one endpoint again, whatever became of it (a
 * receiver that lost it asks for it again). The message is rebuilt from its
 * fact, found through the endpoint's own attempts, so only a message that was
 * meant for this endpoint can be redelivered to it.
 */
export async function redeliverMessage(
  store: EventStore,
  queue: DeliveryQueue,
  target: { tenantId: string; endpointId: string; messageId: string },
  now: number,
): Promise<{ messageId: string; jobId: string }> {
  const { endpoints } = await loadWebhookEndpoints(store, target.tenantId);
  const endpoint = findEndpoint(endpoints, target.endpointId);
  if (endpoint.disabled) throw conflict('webhook_endpoint_disabled', 'The webhook endpoint is disabled.');
  const attempt = await findAttempt(store, target);
  if (!attempt) throw notFound('webhook message');
  const [event] = await store.readAll({ after: attempt.eventPosition - 1, maxCount: 1 });
  const message = event && event.metadata.tenantId === target.tenantId ? notificationFor(event) : null;
  if (!event || !message || message.id !== target.messageId) throw notFound('webhook message');
  const jobId = `webhook-${event.id}-${target.endpointId}-redelivery-${now}`;
  await queue.add('webhook-deliveries', { tenantId: target.tenantId, endpointId: target.endpointId, message, eventPosition: event.position }, { jobId });
  return { messageId: message.id, jobId };
}

async function findAttempt(store: EventStore, target: { tenantId: string; endpointId: string; messageId: string }): Promise<WebhookDeliveryAttempted['data'] | null> {
  const stream = webhookStreams.deliveries(target.tenantId, target.endpointId);
  let fromRevision: number | undefined;
  for (;;) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(fromRevision !== undefined ? { fromRevision } : {}) });
    const found = page.find((e) => (e.data as WebhookDeliveryAttempted['data']).messageId === target.messageId);
    if (found) return found.data as WebhookDeliveryAttempted['data'];
    if (page.length < PAGE) return null;
    fromRevision = page[page.length - 1].revision - 1;
  }
}
