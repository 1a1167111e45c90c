import { EventStore, RecordedEvent } from '@ledger/event-store';
import { CommandContext, toNewEvent } from '@ledger/ledger';
import { conflict, notFound } from '@ledger/platform';
import { loadWebhookEndpoints } from '../endpoints/webhook-endpoints';
import { findEndpoint } from '../endpoints/webhook-endpoints.decider';
import { notificationFor } from '../notification-payload';
import { webhookStreams } from '../streams';
import { WebhookJob } from './deliver-webhook';
import { WebhookDeliveryAttempted, WebhookDeliveryFailed } from './webhook-delivery.events';

/** What redelivery needs of the BullMQ queue of deliveries. */
export interface DeliveryQueue {
  getJob(jobId: string): Promise<FailedDelivery | undefined>;
  add(name: string, data: WebhookJob, options: { jobId: string }): Promise<unknown>;
}

export interface FailedDelivery {
  isFailed(): Promise<boolean>;
  retry(state?: 'failed'): Promise<void>;
}

const PAGE = 500;

/**
 * Records that a delivery job will not be tried again, in the endpoint's
 * index of failures, before the queue moves it to its failed set.
 */
export async function recordFailedDelivery(store: EventStore, job: { id: string; data: WebhookJob }, failedAt: number): Promise<void> {
  const { tenantId, endpointId, message } = job.data;
  const context: CommandContext = { tenantId, actor: 'worker:webhooks', correlationId: message.id, now: failedAt };
  const data: WebhookDeliveryFailed['data'] = { endpointId, messageId: message.id, jobId: job.id, failedAt };
  await store.append(webhookStreams.failedDeliveries(tenantId, endpointId), [toNewEvent({ type: 'WebhookDeliveryFailed', data }, context)], 'any');
}

/**
 * Puts back to work every delivery of an endpoint that exhausted its retries
 * (or was refused for good) since `since`: each starts a new round of
 * attempts with the same message, so the same `webhook-id`. The jobs are
 * found through the endpoint's own index of failures, newest first, so the
 * work is the endpoint's failures since `since`, whatever other endpoints and
 * tenants have in the queue; a job no longer failed (redelivered already, or
 * removed) is passed over.
 */
export async function redeliverFailed(store: EventStore, queue: DeliveryQueue, filter: { tenantId: string; endpointId: string; since: number }): Promise<number> {
  const jobIds = new Set<string>();
  for await (const event of newestFirst(store, webhookStreams.failedDeliveries(filter.tenantId, filter.endpointId))) {
    const { jobId, failedAt } = event.data as WebhookDeliveryFailed['data'];
    if (failedAt < filter.since) break;
    jobIds.add(jobId);
  }
  let redelivered = 0;
  for (const jobId of jobIds) {
    const job = await queue.getJob(jobId);
    if (!job || !(await job.isFailed())) continue;
    await job.retry('failed');
    redelivered += 1;
  }
  return redelivered;
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
  for await (const event of newestFirst(store, webhookStreams.deliveries(target.tenantId, target.endpointId))) {
    const attempt = event.data as WebhookDeliveryAttempted['data'];
    if (attempt.messageId === target.messageId) return attempt;
  }
  return null;
}

/** A stream's events, newest first, read a page at a time as the caller goes on. */
async function* newestFirst(store: EventStore, stream: string): AsyncGenerator<RecordedEvent> {
  let fromRevision: number | undefined;
  for (;;) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(fromRevision !== undefined ? { fromRevision } : {}) });
    yield* page;
    if (page.length < PAGE) return;
    fromRevision = page[page.length - 1].revision - 1;
  }
}
