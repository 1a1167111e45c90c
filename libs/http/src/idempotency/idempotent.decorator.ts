import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency-record';

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

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The route honours Idempotency-Key: an exact retry gets the first answer,
 * the same key on a different request is 422, and a retry while the first
 * one runs is 409. With `{ required: false }` the header is optional and the
 * same rules apply whenever it is sent.
 *
 * The header is declared in the OpenAPI document here, beside the rule, so a
 * client generated from the document sends it exactly where the route reads it.
 */
export const Idempotent = (options: Partial<IdempotentOptions> = {}): MethodDecorator & ClassDecorator => {
  const route = { required: options.required ?? true, protectResponse: options.protectResponse ?? false } satisfies IdempotentOptions;
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, route),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: route.required,
      description:
        `${route.required ? 'Required' : 'Optional'}: 1 to 255 visible ASCII characters, new for each distinct request. ` +
        'An exact retry with the same key answers as the first request did (same status, same body).',
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
    }),
  );
};
