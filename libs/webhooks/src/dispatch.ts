import type { EventStore, RecordedEvent } from '@ledger/event-store';
import type { DispatchedJob } from '@ledger/queues';
import { WebhookJob } from './deliveries/deliver-webhook';
import { loadWebhookEndpoints } from './endpoints/webhook-endpoints';
import { endpointsSubscribedAt } from './endpoints/webhook-endpoints.state';
import { notificationFor } from './notification-payload';

/**
 * The dispatcher's rule (docs/architecture.md, "Queues, webhooks and
 * artifacts"): one delivery job per endpoint of the fact's tenant that was
 * subscribed when the fact was recorded. Which endpoints those are follows from
 * store positions only, so replaying the fact after a crash or a lost
 * checkpoint asks for the same jobs, and the job id (fact and endpoint) makes
 * BullMQ add nothing twice.
 */
export async function webhookJobsFor(store: EventStore, event: RecordedEvent): Promise<Array<DispatchedJob<WebhookJob>>> {
  const tenantId = event.metadata.tenantId;
  const message = tenantId ? notificationFor(event) : null;
  if (!tenantId || !message) return [];
  const { endpoints } = await loadWebhookEndpoints(store, tenantId);
  return endpointsSubscribedAt(endpoints, event.position, message.type).map((endpoint) => ({
    jobId: `webhook-${event.id}-${endpoint.endpointId}`,
    data: { tenantId, endpointId: endpoint.endpointId, message, eventPosition: event.position },
  }));
}
