import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { runWithContext } from '@ledger/platform';
import { DEFAULT_BODY_LIMIT_BYTES, applyBodyLimits } from './limits/body-limit';

// An incoming request id is reused only when it cannot inject anything into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's (or proxy's) `x-request-id` when it is a sane token, else a fresh uuid. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The Fastify adapter the service runs on: JSON logs through `logger` with
 * the request id on Fastify's own lines, the request id echoed in
 * `x-request-id`, a request context opened for every request before
 * anything else (body parsing, guards, handlers) runs in it, and bodies
 * limited per route (@BodyLimit(), else DEFAULT_BODY_LIMIT_BYTES).
 */
export function createHttpAdapter(logger: PinoLogger): FastifyAdapter {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => requestIdFrom(request.headers['x-request-id']),
  });
  applyBodyLimits(adapter.getInstance());
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // Fastify runs the rest of the request's life from `done`, so all of it inherits the context.
    runWithContext({ requestId: request.id, correlationId: request.id }, done);
  });
  return adapter;
}
