import { CustomDecorator, SetMetadata, applyDecorators, createParamDecorator } from '@nestjs/common';
import { Principal, requireContext } from '@ledger/platform';
import type { Scope } from '@ledger/platform';
import { extendRouteConfig } from '../route-config';

export const PUBLIC_ROUTE = 'ledger:public-route';
export const REQUIRED_SCOPES = 'ledger:required-scopes';
export const ANY_OF_SCOPES = 'ledger:any-of-scopes';

/**
 * Open without an API key (health, metrics, the consent page). On a route
 * handler only: the authentication hook, which runs before the body is read,
 * finds it in the route's config; the scope guard in Nest's metadata.
 */
export const Public = (): MethodDecorator => applyDecorators(SetMetadata(PUBLIC_ROUTE, true), extendRouteConfig({ public: true }));

/** The caller's key must carry every listed scope. A route with neither this, @RequireAnyScope() nor @Public() is refused. */
export const RequireScopes = (...scopes: [Scope, ...Scope[]]): CustomDecorator<string> => SetMetadata(REQUIRED_SCOPES, scopes);

/** The caller's key must carry at least one of the listed scopes: for a read that two scopes each grant (consent:read covers every GET). */
export const RequireAnyScope = (...scopes: [Scope, Scope, ...Scope[]]): CustomDecorator<string> => SetMetadata(ANY_OF_SCOPES, scopes);

/** The authenticated principal; only on routes guarded with @RequireScopes(). */
export const CurrentPrincipal = createParamDecorator((_data: unknown): Principal => {
  const { principal } = requireContext();
  if (!principal) throw new Error('@CurrentPrincipal() used on a route without authentication');
  return principal;
});
