import { trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { tracingStarted } from './start-tracing';

/**
 * Names each request's server span by its route template (`POST
 * /v1/redec/consent-interactions/:interactionId/grant`) and sets
 * `http.route`: the HTTP instrumentation knows only the method, and the
 * path would name a consent. Installed only when tracing runs.
 */
export function nameServerSpansByRoute(fastify: FastifyInstance): void {
  if (!tracingStarted()) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const span = trace.getActiveSpan();
    if (span && route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    done();
  });
}
