import { Scope, Scopes } from '@ledger/platform';

/**
 * What a person may do in the console, as the API scopes the role may
 * exercise: every page and action of the console is a route that requires
 * scopes like any other, so a role can do nothing a key with the same
 * scopes could not.
 */
export const CONSOLE_ROLES = ['viewer', 'auditor', 'operator'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export const ROLE_SCOPES: Readonly<Record<ConsoleRole, readonly Scope[]>> = {
  /** Reads consents, lists and charts; acts on nothing. */
  viewer: [Scopes.READ],
  /** The viewer's reads, a consent's history with its proofs, and the reports' contents. */
  auditor: [Scopes.READ, Scopes.AUDIT, Scopes.REPORT],
  /** The auditor's reads, and the compliance work: notice evidence, obligation bindings, webhook redelivery. */
  operator: [Scopes.READ, Scopes.AUDIT, Scopes.REPORT, Scopes.RUNTIME, Scopes.ADMIN],
};

export function isConsoleRole(value: string): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly string[]).includes(value);
}
