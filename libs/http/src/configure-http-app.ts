import { IEntryNestModule, NestFactory, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger as PinoLogger } from 'pino';
import { API_KEY_VERIFIER } from './auth/api-key-verifier';
import { authenticationHook } from './auth/authentication.hook';
import { ScopeGuard } from './auth/scope.guard';
import { createHttpAdapter } from './http-adapter';
import { boundedJsonParser } from './limits/bounded-json';
import { RateLimitSettings, limitRequestRates } from './limits/rate-limit';
import { JsonLogger } from './logging/json-logger';
import { ProblemFilter } from './problem/problem.filter';
import { RequestValidationPipe } from './validation/validation';

/**
 * Installs the HTTP platform on an application built on createHttpAdapter():
 * problem+json errors, JSON bodies of bounded shape, authentication before
 * the body is read, validation, scopes. Idempotency-Key is honoured by the
 * routes marked @Idempotent(), which install its interceptor themselves.
 * The application's modules must provide API_KEY_VERIFIER, and every module
 * with an @Idempotent() route must be able to inject EVENT_STORE, CLOCK and
 * IdentifierProtection (IDEMPOTENCY_HEARTBEAT too, optionally).
 */
export function configureHttpApp(app: NestFastifyApplication): NestFastifyApplication {
  const reflector = app.get(Reflector);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', authenticationHook(app.get(API_KEY_VERIFIER)));
  app.useBodyParser('application/json', {}, boundedJsonParser(fastify));
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalGuards(new ScopeGuard(reflector));
  return app;
}

export interface HttpAppOptions {
  /** Rate limits per API key and client address; none when absent. */
  rateLimit?: RateLimitSettings;
}

/** The production stack in one call, for apps/api's main and for the end-to-end tests. */
export async function createHttpApp(rootModule: IEntryNestModule, logger: PinoLogger, options: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, createHttpAdapter(logger), {
    logger: new JsonLogger(logger),
  });
  configureHttpApp(app);
  if (options.rateLimit) await limitRequestRates(app, options.rateLimit);
  return app;
}
