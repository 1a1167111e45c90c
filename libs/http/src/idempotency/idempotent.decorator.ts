import { CustomDecorator, SetMetadata } from '@nestjs/common';

export const IDEMPOTENT_ROUTE = 'ledger:idempotent-route';

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

/**
 * The route honours Idempotency-Key: an exact retry gets the first answer,
 * the same key on a different request is 422, and a retry while the first
 * one runs is 409. With `{ required: false }` the header is optional and the
 * same rules apply whenever it is sent.
 */
export const Idempotent = (options: Partial<IdempotentOptions> = {}): CustomDecorator<string> =>
  SetMetadata(IDEMPOTENT_ROUTE, { required: options.required ?? true, protectResponse: options.protectResponse ?? false } satisfies IdempotentOptions);
