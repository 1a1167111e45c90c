/** What @Idempotent() records on a route, read by the interceptor it installs. */
export const IDEMPOTENT_ROUTE = 'ledger:idempotent-route';

/** Sent, `true`, on an answer that replays the first answer to the same Idempotency-Key: the client can tell a retry's answer from a new one. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotentOptions {
  /** true (default): a request without the header is refused with 400 IDEMPOTENCY_KEY_REQUIRED. */
  required: boolean;
  /**
   * The answer carries a secret shown only once (a webhook secret): its
   * stored copy, which replays need, is encrypted under the tenant's key, as
   * the secret's own fact is, never kept in clear in the store.
   */
  protectResponse: boolean;
}
