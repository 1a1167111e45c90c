import { conflict, notFound } from '@ledger/platform';
import { WebhookEndpointEvent } from './webhook-endpoint.events';
import { WebhookEndpoint, WebhookEndpoints } from './webhook-endpoints.state';

/** Enough for every environment of a bank (production, DR, a monitor); more is a misconfiguration or abuse. */
export const MAX_ACTIVE_ENDPOINTS = 20;
/** How long a rotated-out secret keeps signing when the request does not say: a day for every receiver to switch. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const MAX_ROTATION_OVERLAP_MS = 7 * 24 * 3_600_000;

export function decideRegisterEndpoint(
  endpoints: WebhookEndpoints,
  request: { url: string; eventTypes: string[] },
  ids: { endpointId: string; encryptedSecret: string },
  now: number,
): WebhookEndpointEvent[] {
  if (endpoints.filter((e) => !e.disabled).length >= MAX_ACTIVE_ENDPOINTS) {
    throw conflict('webhook_endpoint_limit_reached', `A tenant has at most ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints; delete one first.`);
  }
  return [{ type: 'WebhookEndpointRegistered', data: { endpointId: ids.endpointId, url: request.url, eventTypes: [...new Set(request.eventTypes)], encryptedSecret: ids.encryptedSecret, registeredAt: now } }];
}

export function decideRotateSecret(endpoints: WebhookEndpoints, endpointId: string, encryptedSecret: string, overlapMs: number, now: number): WebhookEndpointEvent[] {
  const endpoint = activeEndpoint(endpoints, endpointId);
  return [{ type: 'WebhookSecretRotated', data: { endpointId: endpoint.endpointId, encryptedSecret, rotatedAt: now, previousSecretsValidUntil: now + overlapMs } }];
}

/** Deleting is idempotent: an endpoint already disabled records nothing more. */
export function decideDisableEndpoint(endpoints: WebhookEndpoints, endpointId: string, reason: 'deleted' | 'gone', now: number): WebhookEndpointEvent[] {
  const endpoint = findEndpoint(endpoints, endpointId);
  if (endpoint.disabled) return [];
  return [{ type: 'WebhookEndpointDisabled', data: { endpointId, reason, disabledAt: now } }];
}

export function findEndpoint(endpoints: WebhookEndpoints, endpointId: string): WebhookEndpoint {
  const endpoint = endpoints.find((e) => e.endpointId === endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

function activeEndpoint(endpoints: WebhookEndpoints, endpointId: string): WebhookEndpoint {
  const endpoint = findEndpoint(endpoints, endpointId);
  if (endpoint.disabled) throw conflict('webhook_endpoint_disabled', 'The webhook endpoint is disabled.');
  return endpoint;
}
