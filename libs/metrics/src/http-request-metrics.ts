import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { Histogram, Registry } from 'prom-client';

export const HTTP_REQUEST_DURATION_METRIC = 'http_request_duration_seconds';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** A request that matched no route: its path is whatever the client sent, so it is never a label. */
const UNMATCHED_ROUTE = 'unmatched';

type Observer = Histogram.Internal<string>;

/**
 * Times every request from its arrival to its response in one histogram,
 * labelled by route template (`/v1/redec/consents/:redecConsentId`, never
 * the path), method and status class: request rate, error rate and latency
 * percentiles all come from it, with a number of series bounded by the
 * routes.
 *
 * The request path is performance-critical, so a request costs one
 * observation: each route gets its own hook holding its template (Fastify's
 * `request.routeOptions` builds a new object on every read), the series
 * are found in small maps (no label object nor key string per request) and
 * the duration is Fastify's own measure. Requests that match no route are
 * seen by one hook on the not-found path. Install before the routes are
 * registered (before the application's init).
 */
export function recordHttpRequests(fastify: FastifyInstance, registry: Registry): void {
  const histogram = new Histogram({
    name: HTTP_REQUEST_DURATION_METRIC,
    help: 'Time from a request arriving to its response being sent, by route template, method and status class.',
    labelNames: ['route', 'method', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const observing = (route: string) => {
    const byMethod = new Map<string, Observer[]>();
    return (request: FastifyRequest, reply: FastifyReply) => {
      let byClass = byMethod.get(request.method);
      if (!byClass) byMethod.set(request.method, (byClass = STATUS_CLASSES.map((statusClass) => histogram.labels(route, request.method, statusClass))));
      byClass[Math.min(Math.max(Math.floor(reply.statusCode / 100), 1), 5) - 1].observe(reply.elapsedTime / 1_000);
    };
  };

  fastify.addHook('onRoute', (route) => {
    const observe = observing(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(request, reply);
      done();
    };
    route.onResponse = [...(route.onResponse === undefined ? [] : [route.onResponse].flat()), hook];
  });
  const observeUnmatched = observing(UNMATCHED_ROUTE);
  fastify.addHook('onResponse', (request, reply, done) => {
    // Only a 404 can be a request no route matched; reading routeOptions is paid for those alone.
    if (reply.statusCode === 404 && request.routeOptions.url === undefined) observeUnmatched(request, reply);
    done();
  });
}
