import { CustomDecorator, SetMetadata, createParamDecorator } from '@nestjs/common';
import { Principal, requireContext } from '@ledger/platform';
import type { Scope } from '@ledger/platform';

export const PUBLIC_ROUTE = 'ledger:public-route';
export const REQUIRED_SCOPES = 'ledger:required-scopes';

/** Open without an API key (health, OpenAPI description). */
export const Public = (): CustomDecorator<string> => SetMetadata(PUBLIC_ROUTE, true);

/** The caller's key must carry every listed scope. A route with neither this nor @Public() is refused. */
export const RequireScopes = (...scopes: [Scope, ...Scope[]]): CustomDecorator<string> => SetMetadata(REQUIRED_SCOPES, scopes);

/** The authenticated principal; only on routes guarded with @RequireScopes(). */
export const CurrentPrincipal = createParamDecorator((_data: unknown): Principal => {
  const { principal } = requireContext();
  if (!principal) throw new Error('@CurrentPrincipal() used on a route without authentication');
  return principal;
});
