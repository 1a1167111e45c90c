import { EventStore } from '@ledger/event-store';
import type { ReportKeySource } from '@ledger/platform';
import { CommandContext, toNewEvent } from '@ledger/ledger';
import { EgressPolicy, EgressRefused, resolveDeliveryAddresses } from '../endpoint-url-policy';
import { loadWebhookEndpoints, SecretProtection } from '../endpoints/webhook-endpoints';
import { signingSecrets } from '../endpoints/webhook-endpoints.state';
import { WebhookMessage, messageToSend, serializeMessage } from '../notification-payload';
import { retryAfterMs } from '../retry-schedule';
import { webhookHeaders } from '../signing';
import { webhookStreams } from '../streams';
import type { DeliveryMetricsRecorder } from '../metrics/delivery-metrics';
import { PostAnswer, postToAddress } from './post-to-address';
import { WebhookDeliveryAttempted } from './webhook-delivery.events';

/** One message for one endpoint; the job id is derived from both, so a replayed fact enqueues nothing twice. */
export interface WebhookJob {
  tenantId: string;
  endpointId: string;
  message: WebhookMessage;
  /** Where the fact is in the store: a redelivery rebuilds the message from it. */
  eventPosition: number;
}

export const DELIVERY_TIMEOUT_MS = 15_000;

export interface DeliveryDependencies {
  store: EventStore;
  protection: SecretProtection;
  /** Opens a `report.created`'s hash, kept sealed in the job (decision 0045). */
  reportKeys: Pick<ReportKeySource, 'keyOf'>;
  egress: EgressPolicy;
  now(): number;
  /** Counts each recorded attempt (GET /metrics); never fails the delivery. */
  metrics?: DeliveryMetricsRecorder;
}

/** The receiver did not take the message; try again later (after `retryAfterMs` when it said so). */
export class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** The receiver answered 410 Gone: the endpoint is disabled and the message is not retried. */
export class EndpointGone extends Error {}

export type DeliveryResult = { outcome: 'delivered'; status: number } | { outcome: 'skipped' };

/**
 * One attempt: sign with the endpoint's current secrets, POST with a timeout,
 * and record the attempt. Only a 2xx is a delivery. The endpoint is read as
 * it is now: one disabled since the fact was recorded gets nothing, nor does
 * any endpoint a `report.created` of a report whose content was erased
 * meanwhile.
 */
export async function deliverWebhook(deps: DeliveryDependencies, job: WebhookJob, attempt: number, signal?: AbortSignal): Promise<DeliveryResult> {
  const { tenantId, endpointId, message } = job;
  const { endpoints } = await loadWebhookEndpoints(deps.store, tenantId);
  const endpoint = endpoints.find((e) => e.endpointId === endpointId);
  const attemptedAt = deps.now();
  const record = async (data: Pick<WebhookDeliveryAttempted['data'], 'outcome' | 'status' | 'latencyMs' | 'error'>) => {
    await recordAttempt(deps.store, tenantId, {
      endpointId,
      messageId: message.id,
      eventType: message.type,
      eventPosition: job.eventPosition,
      attempt,
      attemptedAt,
      sinceRecordedMs: attemptedAt - message.createdAt,
      ...data,
    });
    // Only once the attempt is a fact: an attempt that failed to be recorded is retried, and counted then.
    await deps.metrics?.record({ outcome: data.outcome, status: data.status, latencyMs: data.latencyMs, sinceRecordedMs: attemptedAt - message.createdAt });
  };

  if (!endpoint || endpoint.disabled) {
    await record({ outcome: 'skipped', status: null, latencyMs: null, error: 'endpoint_disabled' });
    return { outcome: 'skipped' };
  }

  const sent = await messageToSend(tenantId, message, deps.reportKeys);
  if (!sent) {
    await record({ outcome: 'skipped', status: null, latencyMs: null, error: 'report_content_erased' });
    return { outcome: 'skipped' };
  }
  const body = serializeMessage(sent);
  const secrets = await Promise.all(signingSecrets(endpoint, attemptedAt).map((s) => deps.protection.decrypt(tenantId, s.encryptedSecret)));
  const headers = webhookHeaders(secrets, message.id, Math.floor(attemptedAt / 1000), body);
  const started = performance.now();
  let answer: PostAnswer;
  try {
    // Checked on every attempt, not only at registration, and the connection goes to the address checked (DNS rebinding).
    const [address] = await resolveDeliveryAddresses(endpoint.url, deps.egress);
    const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
    answer = await postToAddress(endpoint.url, address, { ...headers }, body, signal ? AbortSignal.any([timeout, signal]) : timeout);
  } catch (error) {
    const { shown, cause } = describeFailure(error);
    // No latency either: how long a connection took to fail tells an open port from a filtered one.
    await record({ outcome: 'failed', status: null, latencyMs: null, error: shown });
    throw new DeliveryFailed(`${shown}: ${cause}`, null);
  }
  const latencyMs = Math.round(performance.now() - started);
  const { status } = answer;
  if (status >= 200 && status < 300) {
    await record({ outcome: 'delivered', status, latencyMs, error: null });
    return { outcome: 'delivered', status };
  }
  await record({ outcome: 'failed', status, latencyMs, error: `http_${status}` });
  if (status === 410) throw new EndpointGone('the receiver answered 410 Gone');
  // The receiver knows its own load: on 429 and 503 its Retry-After replaces the schedule's next delay.
  const waitMs = status === 429 || status === 503 ? retryAfterMs(answer.retryAfter, deps.now()) : null;
  throw new DeliveryFailed(`http_${status}`, waitMs);
}

/**
 * What an attempt that got no HTTP answer records, and its cause. The
 * integrator sees only that the policy refused the target or that no answer
 * came: which network failure it was (refused, reset, timed out, TLS, DNS)
 * would make the history a port scanner of whatever the URL names. The cause
 * is the job's failure reason, for operators (`ledger queues status`).
 */
function describeFailure(error: unknown): { shown: 'target_not_allowed' | 'aborted' | 'no_response'; cause: string } {
  if (error instanceof EgressRefused) return { shown: 'target_not_allowed', cause: error.reason };
  if (!(error instanceof Error)) return { shown: 'no_response', cause: 'network_error' };
  // Our own worker stopping, not the receiver.
  if (error.name === 'AbortError') return { shown: 'aborted', cause: 'the worker stopped' };
  if (error.name === 'TimeoutError') return { shown: 'no_response', cause: 'timeout' };
  const { code: ownCode, cause } = error as { code?: string; cause?: { code?: string } };
  const code = ownCode ?? cause?.code;
  return { shown: 'no_response', cause: code ? `network_${code.toLowerCase()}` : 'network_error' };
}

async function recordAttempt(store: EventStore, tenantId: string, data: WebhookDeliveryAttempted['data']): Promise<void> {
  const context: CommandContext = { tenantId, actor: 'worker:webhooks', correlationId: data.messageId, now: data.attemptedAt };
  await store.append(webhookStreams.deliveries(tenantId, data.endpointId), [toNewEvent({ type: 'WebhookDeliveryAttempted', data }, context)], 'any');
}
