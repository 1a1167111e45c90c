import type { TenantKeySource } from './keys/tenant-data-key';

/**
 * Keeps identifiers out of events in clear (DESIGN.md, principle 5): a keyed
 * hash for exact matching and an authenticated ciphertext naming its key for
 * authorized recovery, both under the tenant's data key (decision 0028), so
 * the same identifier hashes differently in two tenants and a ciphertext of
 * one tenant does not decrypt under another.
 */
export class IdentifierProtection {
  constructor(private readonly keys: TenantKeySource) {}

  /** HMAC-SHA256 (base64url) of `value`; `purpose` separates kinds of values, e.g. `rut` or `user-reference`. */
  async hash(tenantId: string, purpose: string, value: string): Promise<string> {
    return (await this.keys.dataKey(tenantId)).hash(purpose, value);
  }

  /** AES-256-GCM with a random IV and the tenant id as associated data: `v2.<dataKeyId>.<iv>.<tag>.<ciphertext>` (base64url). */
  async encrypt(tenantId: string, plaintext: string): Promise<string> {
    return (await this.keys.dataKey(tenantId)).encrypt(plaintext);
  }

  /** Throws when the text was altered, is not ours, or belongs to another tenant. */
  async decrypt(tenantId: string, protectedText: string): Promise<string> {
    return (await this.keys.dataKey(tenantId)).decrypt(protectedText);
  }
}
