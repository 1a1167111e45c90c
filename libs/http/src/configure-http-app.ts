import { IEntryNestModule, NestFactory, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger as PinoLogger } from 'pino';
import { EVENT_STORE } from '@ledger/event-store';
import { CLOCK, IdentifierProtection } from '@ledger/platform';
import { API_KEY_VERIFIER } from './auth/api-key-verifier';
import { authenticationHook } from './auth/authentication.hook';
import { ScopeGuard } from './auth/scope.guard';
import { createHttpAdapter } from './http-adapter';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { boundedJsonParser } from './limits/bounded-json';
import { RateLimitSettings, limitRequestRates } from './limits/rate-limit';
import { JsonLogger } from './logging/json-logger';
import { ProblemFilter } from './problem/problem.filter';
import { RequestValidationPipe } from './validation/validation';

/**
 * Installs the HTTP platform on an application built on createHttpAdapter():
 * problem+json errors, JSON bodies of bounded shape, authentication before
 * the body is read, validation, scopes, Idempotency-Key.
 * The application's modules must provide API_KEY_VERIFIER, EVENT_STORE, CLOCK and IdentifierProtection.
 */
export function configureHttpApp(app: NestFastifyApplication, options: Pick<HttpAppOptions, 'idempotencyHeartbeatMs'> = {}): NestFastifyApplication {
  const reflector = app.get(Reflector);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', authenticationHook(app.get(API_KEY_VERIFIER)));
  app.useBodyParser('application/json', {}, boundedJsonParser(fastify));
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalGuards(new ScopeGuard(reflector));
  app.useGlobalInterceptors(
    new IdempotencyInterceptor(reflector, app.get(EVENT_STORE), app.get(CLOCK), app.get(IdentifierProtection), options.idempotencyHeartbeatMs),
  );
  return app;
}

export interface HttpAppOptions {
  /** Rate limits per API key and client address; none when absent. */
  rateLimit?: RateLimitSettings;
  /** How often a running request renews its Idempotency-Key claim; IDEMPOTENCY_HEARTBEAT_MS unless a test needs the lease to pass quickly. */
  idempotencyHeartbeatMs?: number;
}

/** The production stack in one call, for apps/api's main and for the end-to-end tests. */
export async function createHttpApp(rootModule: IEntryNestModule, logger: PinoLogger, options: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, createHttpAdapter(logger), {
    logger: new JsonLogger(logger),
  });
  configureHttpApp(app, options);
  if (options.rateLimit) await limitRequestRates(app, options.rateLimit);
  return app;
}
