/**
 * Webhook endpoints are facts in one stream per tenant, so that the
 * dispatcher can tell, for any fact, which endpoints were subscribed when it
 * was recorded: the answer depends on positions in the store only, and a
 * replay asks for exactly the same deliveries.
 *
 * Secrets are kept encrypted under the tenant's key: the service must sign
 * with them, so a hash would not do.
 */
export interface WebhookEndpointRegistered {
  type: 'WebhookEndpointRegistered';
  data: { endpointId: string; url: string; eventTypes: string[]; encryptedSecret: string; registeredAt: number };
}

/** A new secret; the previous ones keep signing until `previousSecretsValidUntil` so receivers can switch without losing a delivery. */
export interface WebhookSecretRotated {
  type: 'WebhookSecretRotated';
  data: { endpointId: string; encryptedSecret: string; rotatedAt: number; previousSecretsValidUntil: number };
}

/** `deleted` by the integrator, or `gone`: the receiver answered 410. Nothing is delivered to it afterwards. */
export interface WebhookEndpointDisabled {
  type: 'WebhookEndpointDisabled';
  data: { endpointId: string; reason: 'deleted' | 'gone'; disabledAt: number };
}

export type WebhookEndpointEvent = WebhookEndpointRegistered | WebhookSecretRotated | WebhookEndpointDisabled;

export const WEBHOOK_ENDPOINT_EVENT_TYPES: ReadonlySet<string> = new Set<WebhookEndpointEvent['type']>([
  'WebhookEndpointRegistered',
  'WebhookSecretRotated',
  'WebhookEndpointDisabled',
]);
