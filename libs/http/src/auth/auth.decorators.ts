import { createParamDecorator } from '@nestjs/common';
import { Principal, requireContext } from '@ledger/platform';
import type { Scope } from '@ledger/platform';
import { extendRouteConfig } from '../route-config';

/*
 * What a route asks of its caller lives in the route's Fastify config, on
 * route handlers only: the authentication and scope hooks
 * (authentication.hook.ts) find it there and decide before the body is read.
 */

/** Open without an API key (health, metrics, the consent page). */
export const Public = (): MethodDecorator => extendRouteConfig({ public: true });

/**
 * Open without an API key, for a person proving who they are (the
 * console's sign-in): each request spends one of the client address's
 * sign-in attempts, SIGN_IN_ATTEMPTS_PER_MINUTE a minute, and once they are
 * spent the address is refused 429 before the route runs. Guessing is so
 * bounded per address as well as per user (the user's lock-out), and so is
 * the work of checking passwords, which is made slow on purpose.
 */
export const SignIn = (): MethodDecorator => extendRouteConfig({ public: true, signIn: true });

/** The caller's key must carry every listed scope. A route with neither this, @RequireAnyScope() nor @Public() is refused. */
export const RequireScopes = (...scopes: [Scope, ...Scope[]]): MethodDecorator => extendRouteConfig({ requiredScopes: scopes });

/** The caller's key must carry at least one of the listed scopes: for a read that two scopes each grant (consent:read covers every GET). */
export const RequireAnyScope = (...scopes: [Scope, Scope, ...Scope[]]): MethodDecorator => extendRouteConfig({ anyOfScopes: scopes });

/** The authenticated principal; only on routes guarded with @RequireScopes(). */
export const CurrentPrincipal = createParamDecorator((_data: unknown): Principal => {
  const { principal } = requireContext();
  if (!principal) throw new Error('@CurrentPrincipal() used on a route without authentication');
  return principal;
});
