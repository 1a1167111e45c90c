import type { RecordedEvent } from '@ledger/event-store';
import { WebhookEndpointEvent } from './webhook-endpoint.events';

export interface WebhookSecret {
  encryptedSecret: string;
  /** null for the current secret; a rotated-out one signs until then. */
  validUntil: number | null;
}

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  eventTypes: string[];
  secrets: WebhookSecret[];
  registeredAt: number;
  /** Store positions of the registration and of the disabling: which facts the endpoint receives. */
  registeredPosition: number;
  disabledPosition: number | null;
  disabled: { reason: 'deleted' | 'gone'; disabledAt: number } | null;
}

/** Every endpoint of one tenant, in registration order. */
export type WebhookEndpoints = WebhookEndpoint[];

/** Folds recorded facts (positions are part of the state, so the fold takes RecordedEvents). */
export function evolveWebhookEndpoints(state: WebhookEndpoints, recorded: RecordedEvent): WebhookEndpoints {
  const event = recorded as unknown as WebhookEndpointEvent;
  switch (event.type) {
    case 'WebhookEndpointRegistered': {
      const { endpointId, url, eventTypes, encryptedSecret, registeredAt } = event.data;
      const endpoint: WebhookEndpoint = {
        endpointId,
        url,
        eventTypes,
        secrets: [{ encryptedSecret, validUntil: null }],
        registeredAt,
        registeredPosition: recorded.position,
        disabledPosition: null,
        disabled: null,
      };
      return [...state, endpoint];
    }
    case 'WebhookSecretRotated': {
      const { endpointId, encryptedSecret, rotatedAt, previousSecretsValidUntil } = event.data;
      return state.map((e) =>
        e.endpointId !== endpointId
          ? e
          : {
              ...e,
              secrets: [
                { encryptedSecret, validUntil: null },
                // Secrets already expired at the rotation are dropped: they can never sign again.
                ...e.secrets.filter((s) => (s.validUntil ?? Infinity) > rotatedAt).map((s) => ({ ...s, validUntil: Math.min(s.validUntil ?? Infinity, previousSecretsValidUntil) })),
              ],
            },
      );
    }
    case 'WebhookEndpointDisabled': {
      const { endpointId, reason, disabledAt } = event.data;
      return state.map((e) => (e.endpointId === endpointId && !e.disabled ? { ...e, disabled: { reason, disabledAt }, disabledPosition: recorded.position } : e));
    }
    default:
      return state;
  }
}

/** The endpoints that receive a fact recorded at `position` of this type: registered before it and not disabled before it. */
export function endpointsSubscribedAt(endpoints: WebhookEndpoints, position: number, eventType: string): WebhookEndpoint[] {
  return endpoints.filter(
    (e) => e.registeredPosition < position && (e.disabledPosition === null || e.disabledPosition > position) && e.eventTypes.includes(eventType),
  );
}

/** The secrets that sign at `now`: the current one, and rotated-out ones still inside their overlap. */
export function signingSecrets(endpoint: WebhookEndpoint, now: number): WebhookSecret[] {
  return endpoint.secrets.filter((s) => s.validUntil === null || s.validUntil > now);
}
