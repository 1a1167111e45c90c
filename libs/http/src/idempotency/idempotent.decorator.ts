import { SetMetadata, UseInterceptors, applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency-record';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IDEMPOTENT_ROUTE, IdempotentOptions } from './idempotent-route';

export type { IdempotentOptions } from './idempotent-route';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The route honours Idempotency-Key: an exact retry gets the first answer,
 * the same key on a different request is 422, and a retry while the first
 * one runs is 409. With `{ required: false }` the header is optional and the
 * same rules apply whenever it is sent.
 *
 * The header is declared in the OpenAPI document here, beside the rule, so a
 * client generated from the document sends it exactly where the route reads it.
 *
 * The interceptor is installed on these routes only, not globally: every
 * interceptor puts a route's answer through Nest's RxJS pipeline, which cost
 * the routes without a key (the reads) about a fifth of their CPU for nothing.
 */
export const Idempotent = (options: Partial<IdempotentOptions> = {}): MethodDecorator & ClassDecorator => {
  const route = { required: options.required ?? true, protectResponse: options.protectResponse ?? false } satisfies IdempotentOptions;
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, route),
    UseInterceptors(IdempotencyInterceptor),
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
