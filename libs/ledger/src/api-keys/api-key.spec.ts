import { DomainError } from '@ledger/platform';
import { ApiKey, ApiKeyEvent, decideIssueApiKey, decideRevokeApiKey, evolveApiKey, parseApiKey } from './api-key';

const now = 1_763_800_000_000;
const issue = (overrides: Partial<Parameters<typeof decideIssueApiKey>[0]> = {}) =>
  decideIssueApiKey({ keyId: 'k1', tenantId: 't1', tenantExists: true, scopes: ['consent:read'], secretSha256: 'h', now, ...overrides });

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected an error');
}

describe('API keys', () => {
  it('issues a key for an existing tenant with known, de-duplicated scopes', () => {
    expect(issue({ scopes: ['consent:read', 'consent:write', 'consent:read'] })).toEqual([
      { type: 'ApiKeyIssued', data: { keyId: 'k1', tenantId: 't1', scopes: ['consent:read', 'consent:write'], secretSha256: 'h', issuedAt: now } },
    ]);
  });

  it('refuses an unknown tenant, no scopes, or an unknown scope', () => {
    expect(errorOf(() => issue({ tenantExists: false })).code).toBe('NOT_FOUND');
    expect(errorOf(() => issue({ scopes: [] })).errors).toEqual([{ field: 'scopes', reason: 'required' }]);
    expect(errorOf(() => issue({ scopes: ['consent:read', 'consent:everything'] })).errors).toEqual([{ field: 'scopes', reason: 'unknown_scope' }]);
  });

  it('revokes once; a second revocation records nothing', () => {
    const issued = issue().reduce<ApiKey | null>((s, e) => evolveApiKey(s, e), null);
    const revocation = decideRevokeApiKey(issued, 'k1', now + 1);
    expect(revocation).toEqual([{ type: 'ApiKeyRevoked', data: { keyId: 'k1', revokedAt: now + 1 } }]);
    const revoked = revocation.reduce<ApiKey | null>((s, e: ApiKeyEvent) => evolveApiKey(s, e), issued);
    expect(revoked?.revokedAt).toBe(now + 1);
    expect(decideRevokeApiKey(revoked, 'k1', now + 2)).toEqual([]);
    expect(errorOf(() => decideRevokeApiKey(null, 'k2', now)).code).toBe('NOT_FOUND');
  });

  it('parses only well-formed keys', () => {
    const secret = 'A'.repeat(42) + '_';
    expect(parseApiKey(`lk_0123456789abcdef01234567_${secret}`)).toEqual({ keyId: '0123456789abcdef01234567', secret });
    expect(parseApiKey(`lk_0123456789abcdef0123456_${secret}`)).toBeNull();
    expect(parseApiKey(`xx_0123456789abcdef01234567_${secret}`)).toBeNull();
    expect(parseApiKey('')).toBeNull();
  });
});
