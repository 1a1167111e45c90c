import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { DomainError, requireContext } from '@ledger/platform';
import { EVIDENCE_BODY_LIMIT_BYTES } from './body-limit';

/** The share of the budget one tenant's bodies may hold at once: whatever one tenant sends, half stays for the others. */
export const TENANT_SHARE_OF_BODIES_IN_FLIGHT = 0.5;

/** The smallest budget: one tenant's share holds the largest body a route takes, so no valid request is refused forever. */
export const MIN_BODY_BYTES_IN_FLIGHT = EVIDENCE_BODY_LIMIT_BYTES / TENANT_SHARE_OF_BODIES_IN_FLIGHT;

/** How long a refused client waits: an upload in flight is answered within seconds, or cut off by the request timeout. */
const RETRY_AFTER_SECONDS = 1;

export interface BodiesInFlightSettings {
  /** The most bytes of request bodies the process reads and handles at once (LEDGER_MAX_BODY_BYTES_IN_FLIGHT). */
  maxBytes: number;
}

/** Whose budget a request spends: its tenant's, or one shared by the public routes. */
const PUBLIC_OWNER = 'public';

/**
 * A memory budget for request bodies across the process, in an `onRequest`
 * hook, after authentication and before the body is read: each request
 * reserves the bytes it announces (its Content-Length; the route's body
 * limit for a chunked body) until its answer is sent or its connection
 * closes. A request that would take the process past `maxBytes`, or its
 * tenant past TENANT_SHARE_OF_BODIES_IN_FLIGHT of it, is answered 503
 * SERVICE_BUSY with `Retry-After` having sent nothing but headers. Memory
 * then stays bounded however many large uploads arrive at once, and one
 * tenant's uploads never take the whole of it.
 */
export function bodiesInFlight(settings: BodiesInFlightSettings): onRequestHookHandler {
  if (!(settings.maxBytes >= MIN_BODY_BYTES_IN_FLIGHT)) {
    throw new Error(`LEDGER_MAX_BODY_BYTES_IN_FLIGHT must be at least ${MIN_BODY_BYTES_IN_FLIGHT} (a tenant's share must hold the largest body a route takes)`);
  }
  let inFlight = 0;
  const byOwner = new Map<string, number>();
  const tenantShare = Math.floor(settings.maxBytes * TENANT_SHARE_OF_BODIES_IN_FLIGHT);
  return (request, reply, done) => {
    const bytes = announcedBodyBytes(request);
    if (bytes === 0) return done();
    const owner = requireContext().principal?.tenantId ?? PUBLIC_OWNER;
    const held = byOwner.get(owner) ?? 0;
    const refusal =
      inFlight + bytes > settings.maxBytes
        ? { reason: 'bodies_in_flight', detail: 'The service is reading as many request bodies as it can hold; retry after the number of seconds in Retry-After.' }
        : held + bytes > tenantShare
          ? { reason: 'tenant_share_of_bodies_in_flight', detail: "Your other requests in flight hold your share of the service's memory for bodies; retry after the number of seconds in Retry-After." }
          : undefined;
    if (refusal) {
      // Closed after the answer: kept alive, Node would read the whole refused body to reuse the connection.
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS)).header('connection', 'close');
      return done(new DomainError('unavailable', 'SERVICE_BUSY', refusal.detail, { reason: refusal.reason }));
    }
    inFlight += bytes;
    byOwner.set(owner, held + bytes);
    // 'close' comes once the answer is sent, or the connection is gone: either way the body is let go.
    reply.raw.once('close', () => {
      inFlight -= bytes;
      const left = (byOwner.get(owner) ?? bytes) - bytes;
      if (left > 0) byOwner.set(owner, left);
      else byOwner.delete(owner);
    });
    done();
  };
}

/**
 * The bytes a request will send: its Content-Length, or for a chunked body
 * the route's limit. Nothing for a request without a body, an unknown
 * route, or a body over the route's limit (Fastify refuses it 413 unread).
 */
function announcedBodyBytes(request: FastifyRequest): number {
  const length = request.headers['content-length'];
  const chunked = request.headers['transfer-encoding'] !== undefined;
  // Most requests have no body: they cost two header reads (Fastify builds routeOptions anew on every read).
  if ((length === undefined && !chunked) || request.is404) return 0;
  const limit = request.routeOptions.bodyLimit ?? 0;
  if (length !== undefined) {
    const bytes = Number(length);
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes <= limit ? bytes : 0;
  }
  return limit;
}
