import { randomUUID } from 'node:crypto';
import { EventStore, ExpectedRevision } from '@ledger/event-store';
import { CommandContext, Decision, factsOfSameRequest, runCommand } from '@ledger/ledger';
import { generateWebhookSecret } from '../signing';
import { webhookStreams } from '../streams';
import { WebhookEndpointEvent } from './webhook-endpoint.events';
import { decideDisableEndpoint, decideRegisterEndpoint, decideRotateSecret, findEndpoint } from './webhook-endpoints.decider';
import { WebhookEndpoint, WebhookEndpoints, evolveWebhookEndpoints } from './webhook-endpoints.state';

type Context = CommandContext & { tenantId: string };

/** What the endpoints need of identifier protection: secrets are encrypted under the tenant's key. */
export interface SecretProtection {
  encrypt(tenantId: string, plaintext: string): Promise<string>;
  decrypt(tenantId: string, protectedText: string): Promise<string>;
}

export interface EndpointsDependencies {
  store: EventStore;
  protection: SecretProtection;
}

export async function loadWebhookEndpoints(store: EventStore, tenantId: string): Promise<{ endpoints: WebhookEndpoints; expectedRevision: ExpectedRevision }> {
  const recorded = await store.readStream(webhookStreams.endpoints(tenantId));
  return {
    endpoints: recorded.reduce(evolveWebhookEndpoints, [] as WebhookEndpoints),
    expectedRevision: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision,
  };
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** The endpoint's current secret, shown on registration and on rotation only (a retry whose answer was lost gets it from the facts). */
  secret: string;
  position: number;
}

/**
 * A change of the tenant's endpoints through the one command path: their
 * stream is read, the change decided on it and appended at the revision
 * read; a concurrent change decides again. A retry of a request whose answer
 * was lost is answered from the fact it recorded.
 */
async function changeEndpoints(
  store: EventStore,
  context: Context,
  endpointId: (endpoints: WebhookEndpoints) => string,
  decide: (endpoints: WebhookEndpoints) => WebhookEndpointEvent[],
): Promise<{ endpoint: WebhookEndpoint; position: number }> {
  const stream = webhookStreams.endpoints(context.tenantId);
  type Changed = { endpoints: WebhookEndpoints; id: string; recordedFrom?: number };
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<Changed>> => {
    const recorded = await reads.events(stream);
    const endpoints = recorded.reduce(evolveWebhookEndpoints, [] as WebhookEndpoints);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { answer: { endpoints, id: (earlier.data as { endpointId: string }).endpointId }, position: earlier.position };
    const events = decide(endpoints);
    const id = endpointId(endpoints);
    if (events.length === 0) return { answer: { endpoints, id }, position: recorded[recorded.length - 1].position };
    return { record: { streamId: stream, facts: events }, answer: { endpoints, id, recordedFrom: recorded.length } };
  });
  const { endpoints, id, recordedFrom } = result;
  if (recordedFrom === undefined) return { endpoint: findEndpoint(endpoints, id), position: position! };
  // Positions are part of an endpoint's state: the facts just recorded are folded as the store recorded them.
  const after = (await store.readStream(stream, { fromRevision: recordedFrom })).reduce(evolveWebhookEndpoints, endpoints);
  return { endpoint: findEndpoint(after, id), position: position! };
}

/** A new endpoint with its `whsec_` secret, shown only in this answer (docs/reference/webhooks.md, "Managing endpoints"). The URL is already checked against the policy. */
export async function registerWebhookEndpoint(deps: EndpointsDependencies, request: { url: string; eventTypes: string[] }, context: Context): Promise<EndpointWithSecret> {
  const endpointId = randomUUID();
  const encryptedSecret = await deps.protection.encrypt(context.tenantId, generateWebhookSecret());
  const changed = await changeEndpoints(deps.store, context, () => endpointId, (endpoints) => decideRegisterEndpoint(endpoints, request, { endpointId, encryptedSecret }, context.now));
  return withCurrentSecret(deps.protection, context.tenantId, changed);
}

export async function rotateWebhookSecret(deps: EndpointsDependencies, endpointId: string, overlapMs: number, context: Context): Promise<EndpointWithSecret> {
  const encryptedSecret = await deps.protection.encrypt(context.tenantId, generateWebhookSecret());
  const changed = await changeEndpoints(deps.store, context, () => endpointId, (endpoints) => decideRotateSecret(endpoints, endpointId, encryptedSecret, overlapMs, context.now));
  return withCurrentSecret(deps.protection, context.tenantId, changed);
}

async function withCurrentSecret(protection: SecretProtection, tenantId: string, changed: { endpoint: WebhookEndpoint; position: number }): Promise<EndpointWithSecret> {
  const [current] = changed.endpoint.secrets;
  return { endpoint: changed.endpoint, secret: await protection.decrypt(tenantId, current.encryptedSecret), position: changed.position };
}

export async function disableWebhookEndpoint(store: EventStore, endpointId: string, reason: 'deleted' | 'gone', context: Context): Promise<{ endpoint: WebhookEndpoint; position: number }> {
  return changeEndpoints(store, context, () => endpointId, (endpoints) => decideDisableEndpoint(endpoints, endpointId, reason, context.now));
}
