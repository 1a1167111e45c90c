import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { fieldRefused, notFound } from '@ledger/platform';
import {
  WebhookDeliveryAttempted,
  WebhookEndpoint,
  WebhookEndpointEvent,
  WebhookEndpoints,
  evolveWebhookEndpoints,
  findEndpoint,
  loadWebhookEndpoints,
  webhookStreams,
} from '@ledger/webhooks';
import { DEFAULT_PAGE_LIMIT } from '../../page-query.dto';
import { WebhookDeliveryPageDto, WebhookEndpointDto, WebhookEndpointListDto } from './webhook-endpoint.dto';

export class ListWebhookEndpointsQuery {
  constructor(readonly tenantId: string) {}
}

export class GetWebhookEndpointQuery {
  constructor(
    readonly tenantId: string,
    readonly endpointId: string,
  ) {}
}

export class ListWebhookDeliveriesQuery {
  constructor(
    readonly tenantId: string,
    readonly endpointId: string,
    readonly page: { limit?: number; cursor?: string; before?: string },
  ) {}
}

/**
 * The tenant's endpoints as the API shows them, from their stream in the
 * store (authoritative, and small: at most a few dozen facts). The state
 * keeps no rotation instant, so the facts are folded here with the library's
 * evolve and the last `rotatedAt` of each endpoint noted beside it.
 */
async function readEndpoints(store: EventStore, tenantId: string): Promise<WebhookEndpointDto[]> {
  const recorded = await store.readStream(webhookStreams.endpoints(tenantId));
  const rotatedAt = new Map<string, number>();
  for (const fact of recorded) {
    const event = fact as unknown as WebhookEndpointEvent;
    if (event.type === 'WebhookSecretRotated') rotatedAt.set(event.data.endpointId, event.data.rotatedAt);
  }
  const endpoints = recorded.reduce(evolveWebhookEndpoints, [] as WebhookEndpoints);
  return endpoints.map((endpoint) => representation(endpoint, rotatedAt.get(endpoint.endpointId) ?? null));
}

/** Never a secret, nor its ciphertext. */
function representation(endpoint: WebhookEndpoint, secretRotatedAt: number | null): WebhookEndpointDto {
  return {
    endpointId: endpoint.endpointId,
    url: endpoint.url,
    eventTypes: [...endpoint.eventTypes],
    status: endpoint.disabled ? 'disabled' : 'active',
    createdAt: endpoint.registeredAt,
    disabledAt: endpoint.disabled?.disabledAt ?? null,
    disabledReason: endpoint.disabled?.reason ?? null,
    secretRotatedAt,
  };
}

@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery, WebhookEndpointListDto> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tenantId }: ListWebhookEndpointsQuery): Promise<WebhookEndpointListDto> {
    return { endpoints: await readEndpoints(this.store, tenantId) };
  }
}

@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery, WebhookEndpointDto> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** Another tenant's endpoint is in another tenant's stream: not found here. */
  async execute({ tenantId, endpointId }: GetWebhookEndpointQuery): Promise<WebhookEndpointDto> {
    const endpoints = await readEndpoints(this.store, tenantId);
    const endpoint = endpoints.find((e) => e.endpointId === endpointId);
    if (!endpoint) throw notFound('webhook endpoint');
    return endpoint;
  }
}

/**
 * The cursor names the revision of the endpoint's delivery stream the next
 * page starts from (reading backwards). It is opaque to clients: base64url of
 * `r<revision>`, so it can change form without breaking anyone who just
 * passes it back.
 */
function encodeCursor(revision: number): string {
  return Buffer.from(`r${revision}`, 'utf8').toString('base64url');
}

/** The revision the page starts from: `cursor`'s, or the deprecated `before`'s; undefined for the first page. */
function cursorOf({ cursor, before }: { cursor?: string; before?: string }): number | undefined {
  if (cursor !== undefined && before !== undefined) throw fieldRefused('before', 'not_with_cursor', 'before is the deprecated name of cursor: send one of them.');
  const field = cursor !== undefined ? 'cursor' : 'before';
  const given = cursor ?? before;
  if (given === undefined) return undefined;
  const match = /^r(\d{1,15})$/.exec(Buffer.from(given, 'base64url').toString('utf8'));
  // Re-encoding must give the same text: base64url decoding skips what it does not know.
  if (!match || encodeCursor(Number(match[1])) !== given) throw fieldRefused(field, 'invalid_cursor', `${field} must be the \`nextCursor\` of an earlier page.`);
  return Number(match[1]);
}

@QueryHandler(ListWebhookDeliveriesQuery)
export class ListWebhookDeliveriesHandler implements IQueryHandler<ListWebhookDeliveriesQuery, WebhookDeliveryPageDto> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tenantId, endpointId, page }: ListWebhookDeliveriesQuery): Promise<WebhookDeliveryPageDto> {
    const fromRevision = cursorOf(page);
    const { endpoints } = await loadWebhookEndpoints(this.store, tenantId);
    findEndpoint(endpoints, endpointId);
    const limit = page.limit ?? DEFAULT_PAGE_LIMIT;
    // One more than the page: whether it exists says whether there is a next page, and its revision is where that page starts.
    const recorded = await this.store.readStream(webhookStreams.deliveries(tenantId, endpointId), { direction: 'backwards', fromRevision, maxCount: limit + 1 });
    const items = recorded
      .slice(0, limit)
      .filter((fact) => fact.type === 'WebhookDeliveryAttempted')
      .map((fact) => {
        const { messageId, eventType, attempt, attemptedAt, outcome, status, latencyMs, error } = (fact as unknown as WebhookDeliveryAttempted).data;
        return { messageId, eventType, attempt, attemptedAt, outcome, status, latencyMs, error };
      });
    const nextCursor = recorded.length > limit ? encodeCursor(recorded[limit].revision) : null;
    return { items, nextCursor, deliveries: items, next: nextCursor };
  }
}
