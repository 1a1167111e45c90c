/** One attempt to deliver one message to one endpoint, kept so the integrator can see every attempt through the API. */
export interface WebhookDeliveryAttempted {
  type: 'WebhookDeliveryAttempted';
  data: {
    endpointId: string;
    /** The body `id` and `webhook-id`: the same for every attempt of one message. */
    messageId: string;
    eventType: string;
    /** The fact's position in the store, from which the message can be built again. */
    eventPosition: number;
    /** 1 for the first attempt of a job; a redelivery starts again at 1. */
    attempt: number;
    attemptedAt: number;
    /** `delivered` (2xx), `failed` (anything else, a timeout or a refused address), `skipped` (the endpoint was disabled meanwhile). */
    outcome: 'delivered' | 'failed' | 'skipped';
    /** The receiver's HTTP status; null when no answer came. */
    status: number | null;
    latencyMs: number | null;
    /** What went wrong, for the integrator: never a secret or the body. */
    error: string | null;
    /** From the fact's recording to this delivery: what the latency target is about. */
    sinceRecordedMs: number;
  };
}

/**
 * A delivery job that will not be tried again (its attempts exhausted, or
 * refused for good): an entry of the endpoint's index of failures, so that
 * redelivering them reads this endpoint's failures only.
 */
export interface WebhookDeliveryFailed {
  type: 'WebhookDeliveryFailed';
  data: { endpointId: string; messageId: string; jobId: string; failedAt: number };
}
