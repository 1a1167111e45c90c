import { DomainError, ErrorCodes, Principal, Scope } from '@ledger/platform';

/** For needs that depend on the request, e.g. `identifiers[].verification` needs `consent:identity-assert`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, `This operation needs the scope ${scope}.`);
  }
}

/**
 * What a route's config asks of the caller's key (@RequireScopes(),
 * @RequireAnyScope()); a route that names no scope is open to none, so a
 * route someone forgot to classify stays closed.
 */
export function assertRouteScopes(principal: Principal, route: { requiredScopes?: readonly Scope[]; anyOfScopes?: readonly Scope[] }): void {
  const { requiredScopes, anyOfScopes } = route;
  if (anyOfScopes) {
    if (anyOfScopes.some((scope) => principal.scopes.includes(scope))) return;
    throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, `This operation needs one of the scopes ${anyOfScopes.join(', ')}.`);
  }
  if (!requiredScopes) throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, 'This operation is not open to any scope.');
  for (const scope of requiredScopes) assertScope(principal, scope);
}
