import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, LogController } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { runWithContext } from '@ledger/platform';
import { applyNoStore } from './caching/no-store';
import { applyBase64Decoding } from './limits/base64-members';
import { DEFAULT_BODY_LIMIT_BYTES, applyBodyLimits } from './limits/body-limit';
import { PROBLEM_CONTENT_TYPE, clientErrorProblem, toProblem } from './problem/problem';

/**
 * How long a client may take to send a whole request, headers and body: a
 * 16 MiB evidence upload needs 4.5 Mbit/s, far below a bank backend's link;
 * a client that announces a body and stalls is cut off (408) instead of
 * holding its connection open.
 */
const REQUEST_TIMEOUT_MS = 30_000;

/** How often Node looks for requests past REQUEST_TIMEOUT_MS (its default, 30 s, would double the wait). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** A connection without any traffic for this long is closed: longer than any handler runs (the idempotency lease is 30 s). */
const CONNECTION_TIMEOUT_MS = 60_000;

/**
 * An idle keep-alive connection is closed after this long: just above the
 * 60 s idle timeout of common load balancers and reverse proxies, so that
 * they, not the service, close the connections they pool.
 */
const KEEP_ALIVE_TIMEOUT_MS = 61_000;

// An incoming request id is reused only when it cannot inject anything into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's (or proxy's) `x-request-id` when it is a sane token, else a fresh uuid. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The Fastify adapter the service runs on: JSON logs through `logger`, one
 * line per request answered (method, path, status, time) with its request
 * id, the request id echoed in
 * `x-request-id`, a request context opened for every request before
 * anything else (body parsing, guards, handlers) runs in it, bodies limited
 * per route (@BodyLimit(), else DEFAULT_BODY_LIMIT_BYTES), evidence's base64
 * decoded as it arrives (@EvidenceBytes()), `Cache-Control:
 * no-store` on the routes marked @NoStore(), and the time a
 * client may hold a connection bounded.
 */
export function createHttpAdapter(logger: PinoLogger): FastifyAdapter {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // One line per request, written when it is answered (below), instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // No Nest middleware is used: without middie, no request passes through an empty middleware chain.
    skipMiddie: true,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Node counts a request's time against the larger of its headers and request timeouts: the headers get the same bound.
    http: { headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => requestIdFrom(request.headers['x-request-id']),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  });
  answerContinueWhenReading(adapter.getInstance());
  applyBodyLimits(adapter.getInstance());
  applyBase64Decoding(adapter.getInstance());
  applyNoStore(adapter.getInstance());
  adapter.getInstance().addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // Fastify runs the rest of the request's life from `done`, so all of it inherits the context.
    runWithContext({ requestId: request.id, correlationId: request.id }, done);
  });
  return adapter;
}

/**
 * What routing rejects before any hook runs (a path that is not valid
 * percent-encoded UTF-8, an overlong path segment) is answered as
 * problem+json, never with Fastify's own message, which quotes the URL and
 * its query (a consent page token, say).
 */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error);
  void reply.header('x-request-id', request.id).status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/**
 * What Node rejects before Fastify has a request (REQUEST_TIMEOUT_MS passed,
 * oversized headers, bytes that are not HTTP) is answered as problem+json
 * too, then the connection is closed, as Fastify's own handler does.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = clientErrorProblem(error);
  const body = JSON.stringify(problem);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Node answers `Expect: 100-continue` itself as soon as the headers arrive,
 * so a client that asks first sends its body before any check has run. The
 * service answers it when it starts reading the body instead: a request
 * refused before (401, 403, 429, 503 for the memory budget of bodies) is
 * answered without its body ever being sent.
 */
function answerContinueWhenReading(fastify: FastifyInstance): void {
  // With a listener, Node leaves the 100 to it; the request then goes to Fastify as any other.
  fastify.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => fastify.server.emit('request', request, response));
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    if (/^100-continue$/i.test(request.headers.expect ?? '')) reply.raw.writeContinue();
    done(null, payload);
  });
}
