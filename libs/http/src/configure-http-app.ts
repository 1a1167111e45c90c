import { IEntryNestModule, NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger as PinoLogger } from 'pino';
import { API_KEY_VERIFIER } from './auth/api-key-verifier';
import { authenticationHook, scopeHook } from './auth/authentication.hook';
import { createHttpAdapter } from './http-adapter';
import { BodiesInFlightSettings, bodiesInFlight } from './limits/bodies-in-flight';
import { boundedJsonParser } from './limits/bounded-json';
import { RateLimitSettings, rateLimits } from './limits/rate-limit';
import { JsonLogger } from './logging/json-logger';
import { ProblemFilter } from './problem/problem.filter';
import { RequestValidationPipe } from './validation/validation';

export interface HttpAppOptions {
  /** Rate limits per API key and client address; none when absent. */
  rateLimit?: RateLimitSettings;
  /** The memory budget for request bodies in flight; unbounded when absent. */
  bodiesInFlight?: BodiesInFlightSettings;
}

/**
 * The production HTTP stack in one call, for apps/api's main and for the
 * end-to-end tests: an application on createHttpAdapter() with
 * problem+json errors, JSON bodies of bounded shape, authentication, rate
 * limits, scopes and the memory budget for bodies before the body is read,
 * and validation.
 * Idempotency-Key is honoured by the routes marked @Idempotent(), which
 * install its interceptor themselves. The application's modules must
 * provide API_KEY_VERIFIER, and every module with an @Idempotent() route
 * must be able to inject EVENT_STORE, CLOCK and IdentifierProtection
 * (IDEMPOTENCY_HEARTBEAT too, optionally).
 */
export async function createHttpApp(rootModule: IEntryNestModule, logger: PinoLogger, options: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, createHttpAdapter(logger), {
    logger: new JsonLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance();
  const limits = options.rateLimit && (await rateLimits(app, options.rateLimit));
  // onRequest hooks run in this order: who the caller is (a 401 spending its address's budget of failures),
  // whether it is over its budget, whether its key may use the route.
  fastify.addHook('onRequest', authenticationHook(app.get(API_KEY_VERIFIER), limits?.authenticationBudgets));
  if (limits) fastify.addHook('onRequest', limits.spendRequestBudgets);
  fastify.addHook('onRequest', scopeHook);
  // Last, so that a request refused for its key, its budget or its scopes holds none of the memory for bodies.
  if (options.bodiesInFlight) fastify.addHook('onRequest', bodiesInFlight(options.bodiesInFlight));
  app.useBodyParser('application/json', {}, boundedJsonParser(fastify));
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new RequestValidationPipe());
  return app;
}
