import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed, public salt: HKDF's strength here comes from the 32-byte master key.
const HKDF_SALT = Buffer.from('consent-ledger/identifier-protection');

/**
 * Keeps identifiers out of events in clear (DESIGN.md, principle 5): a keyed
 * hash for exact matching and an authenticated ciphertext for authorized
 * recovery. Every key is derived from the master key per tenant and purpose,
 * so the same identifier hashes differently in two tenants and a ciphertext
 * of one tenant does not decrypt under another.
 */
export class IdentifierProtection {
  private readonly derivedKeys = new Map<string, Buffer>();

  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  /** HMAC-SHA256 (base64url) of `value`; `purpose` separates kinds of values, e.g. `rut` or `user-reference`. */
  hash(tenantId: string, purpose: string, value: string): string {
    return createHmac('sha256', this.key(['hash', tenantId, purpose])).update(value, 'utf8').digest('base64url');
  }

  /** AES-256-GCM with a random IV and the tenant id as associated data: `v1.<iv>.<tag>.<ciphertext>` (base64url). */
  encrypt(tenantId: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(['encrypt', tenantId]), iv);
    cipher.setAAD(Buffer.from(tenantId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT_VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
  }

  /** Throws when the text was altered, is not ours, or belongs to another tenant. */
  decrypt(tenantId: string, protectedText: string): string {
    const parts = protectedText.split('.');
    if (parts.length !== 4 || parts[0] !== FORMAT_VERSION) throw new Error('not a protected identifier (unknown format)');
    const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('not a protected identifier (bad lengths)');
    const decipher = createDecipheriv('aes-256-gcm', this.key(['encrypt', tenantId]), iv);
    decipher.setAAD(Buffer.from(tenantId, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // Node's message ("Unsupported state or unable to authenticate data") says nothing useful to a caller.
      throw new Error('protected identifier failed authentication (altered, or of another tenant)');
    }
  }

  /** The HKDF info is JSON so that no tenant id or purpose can be crafted to collide with another pair. */
  private key(label: string[]): Buffer {
    const info = JSON.stringify(label);
    let key = this.derivedKeys.get(info);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, HKDF_SALT, Buffer.from(info, 'utf8'), 32));
      this.derivedKeys.set(info, key);
    }
    return key;
  }
}
