import type { FastifyContextConfig, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { DomainError, requireContext, unauthenticated } from '@ledger/platform';
import { ApiKeyVerifier } from './api-key-verifier';
import { assertRouteScopes } from './scopes';

// RFC 6750 token68 would allow more, but our keys are visible ASCII; anything else is malformed.
const BEARER = /^Bearer ([\x21-\x7e]+)$/i;
const SEND_A_KEY = 'Send an API key as "Authorization: Bearer <apiKey>".';

/**
 * The config of a route that takes a key: none for a public route, nor for
 * an unknown one, which the not-found handler answers without a key.
 */
function keyedRouteConfig(request: FastifyRequest): FastifyContextConfig | undefined {
  if (request.is404) return undefined;
  // Fastify builds routeOptions anew on every read.
  const { config } = request.routeOptions;
  return config.public ? undefined : config;
}

/** What authentication spends of a client address's budgets (the rate limits keep them): its failed authentications, and its sign-in attempts. */
export interface AuthenticationBudgets {
  /** The 429 to answer, with its Retry-After set, when the request's address has no failure left this minute. */
  refuseWhenSpent(request: FastifyRequest, reply: FastifyReply): DomainError | undefined;
  /** A request of that address refused 401. */
  count(request: FastifyRequest): void;
  /** Spends one of the address's sign-in attempts (@SignIn()); the 429 to answer, with its Retry-After set, when none is left this minute. */
  spendSignIn(request: FastifyRequest, reply: FastifyReply): DomainError | undefined;
}

/**
 * Authenticates every request to a route that is not @Public() in Fastify's
 * `onRequest` phase, before its body is read: a caller without a valid key
 * is answered 401 having sent nothing but headers, whatever size of body it
 * announces (Node then closes the connection rather than read it). The
 * principal goes into the request context, where the scope hook, handlers,
 * the idempotency interceptor and the loggers find it.
 *
 * With rate limits, every 401 spends the client address's budget of
 * failures, and an address that has spent it is refused 429 before any key
 * it sends is looked up: guessing keys costs the store a bounded number of
 * reads.
 *
 * An unknown route is left to the not-found handler: there is nothing to
 * authenticate for, and its 404 needs no key.
 */
export function authenticationHook(verifier: ApiKeyVerifier, budgets?: AuthenticationBudgets): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.is404 && request.routeOptions.config.signIn === true) {
      // A sign-in route authenticates its person itself, each attempt from the address's own budget.
      const spent = budgets?.spendSignIn(request, reply);
      if (spent) throw spent;
      return;
    }
    if (!keyedRouteConfig(request)) return;
    const spent = budgets?.refuseWhenSpent(request, reply);
    if (spent) throw spent;
    const header = request.headers.authorization;
    const apiKey = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const principal = apiKey === undefined ? null : await verifier.verify(apiKey);
    if (!principal) {
      budgets?.count(request);
      throw unauthenticated(apiKey === undefined ? SEND_A_KEY : 'The API key is unknown or revoked.');
    }
    requireContext().principal = principal;
  };
}

/**
 * Refuses, in `onRequest` too, a key that lacks the scopes the route's
 * config names (@RequireScopes(), @RequireAnyScope()), or any key on a route
 * that names none: 403 before the body is read. Installed after the rate
 * limit, so a refused request still spends its key's budget.
 */
export const scopeHook: onRequestHookHandler = (request, _reply, done) => {
  const config = keyedRouteConfig(request);
  if (!config) return done();
  const { principal } = requireContext();
  // The authentication hook ran first: a route that takes a key has a principal by now.
  if (!principal) return done(unauthenticated(SEND_A_KEY));
  try {
    assertRouteScopes(principal, config);
  } catch (error) {
    return done(error as Error);
  }
  done();
};

