import { DomainError, ErrorCodes, Principal, Scope } from '@ledger/platform';

/** For needs that depend on the request, e.g. `identifiers[].verification` needs `consent:identity-assert`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, `This operation needs the scope ${scope}.`);
  }
}
