import { IEntryNestModule, NestFactory, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger as PinoLogger } from 'pino';
import { EVENT_STORE } from '@ledger/event-store';
import { CLOCK, IdentifierProtection } from '@ledger/platform';
import { API_KEY_VERIFIER } from './auth/api-key-verifier';
import { ApiKeyGuard } from './auth/api-key.guard';
import { createHttpAdapter } from './http-adapter';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { JsonLogger } from './logging/json-logger';
import { ProblemFilter } from './problem/problem.filter';
import { RequestValidationPipe } from './validation/validation';

export interface HttpAppOptions {
  /** How often a running request renews its Idempotency-Key claim; IDEMPOTENCY_HEARTBEAT_MS unless a test needs the lease to pass quickly. */
  idempotencyHeartbeatMs?: number;
}

/**
 * Installs the HTTP platform on an application built on createHttpAdapter():
 * problem+json errors, validation, authentication and scopes, Idempotency-Key.
 * The application's modules must provide API_KEY_VERIFIER, EVENT_STORE, CLOCK and IdentifierProtection.
 */
export function configureHttpApp(app: NestFastifyApplication, options: HttpAppOptions = {}): NestFastifyApplication {
  const reflector = app.get(Reflector);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalGuards(new ApiKeyGuard(reflector, app.get(API_KEY_VERIFIER)));
  app.useGlobalInterceptors(
    new IdempotencyInterceptor(reflector, app.get(EVENT_STORE), app.get(CLOCK), app.get(IdentifierProtection), options.idempotencyHeartbeatMs),
  );
  return app;
}

/** The production stack in one call, for apps/api's main and for the end-to-end tests. */
export async function createHttpApp(rootModule: IEntryNestModule, logger: PinoLogger, options: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, createHttpAdapter(logger), {
    logger: new JsonLogger(logger),
  });
  return configureHttpApp(app, options);
}
