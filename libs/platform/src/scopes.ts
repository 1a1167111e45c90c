/** The scopes an API key can carry (docs/reference/authentication.md, "Scopes"). */
export const Scopes = {
  ADMIN: 'consent:admin',
  WRITE: 'consent:write',
  READ: 'consent:read',
  RUNTIME: 'consent:runtime',
  IDENTITY_ASSERT: 'consent:identity-assert',
  AUDIT: 'consent:audit',
  REPORT: 'consent:report',
} as const;

export type Scope = (typeof Scopes)[keyof typeof Scopes];

export const SCOPES: readonly Scope[] = Object.values(Scopes);

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** What each scope lets a key do, in a line: for operators choosing a key's scopes (`ledger key issue --help`). */
export const SCOPE_MEANINGS: Readonly<Record<Scope, string>> = {
  [Scopes.ADMIN]: 'configurations, webhook endpoints, tenant settings',
  [Scopes.WRITE]: 'customer resolution, interactions, grant, revoke, credit extensions, embed sessions',
  [Scopes.READ]: "every GET under /v1 but a consent's history, the verifiable ledger's and a report's content",
  [Scopes.RUNTIME]: 'notification evidence, obligation bindings, access authorize and confirm',
  [Scopes.IDENTITY_ASSERT]: 'sending identifiers[].verification',
  [Scopes.AUDIT]: 'event history and integrity proofs',
  [Scopes.REPORT]: "RDC30/RDC31 reports; the only scope that reads a report's content, which names people by RUT",
};
