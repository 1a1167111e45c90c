/** The scopes an API key can carry (CONTRACT.md, "Authentication and scopes"). */
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
