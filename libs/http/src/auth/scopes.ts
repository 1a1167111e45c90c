import { DomainError, ErrorCodes, Principal } from '@ledger/platform';

/** The scopes of CONTRACT.md ("Authentication and scopes"). */
export const Scopes = {
  ADMIN: 'consent:admin',
  WRITE: 'consent:write',
  READ: 'consent:read',
  RUNTIME: 'consent:runtime',
  IDENTITY_ASSERT: 'consent:identity-assert',
  AUDIT: 'consent:audit',
} as const;

export type Scope = (typeof Scopes)[keyof typeof Scopes];

/** For needs that depend on the request, e.g. `identifiers[].verification` needs `consent:identity-assert`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, `This operation needs the scope ${scope}.`);
  }
}
