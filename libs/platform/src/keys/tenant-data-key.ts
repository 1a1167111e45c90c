import { createHmac, randomBytes } from 'node:crypto';
import { SEALED_IV_BYTES, SEALED_TAG_BYTES, SealBrokenError, deriveKey, parseSealedText, seal, sealedText, unseal } from './sealing';

const DATA_KEY_BYTES = 32;
const DERIVATION_SALT = 'consent-ledger/tenant-data-key';
/** Identifier ciphertexts: `v2.<dataKeyId>.<iv>.<tag>.<ciphertext>`. v1 (decision 0012 and before) named no key. */
const VALUE_FORMAT = 'v2';
/** Blob envelopes start with these bytes, then a format byte, the key id's length and the key id. */
const BLOB_MAGIC = Buffer.from('LDGB', 'ascii');
const BLOB_FORMAT = 1;

/**
 * One tenant's data key: 32 random bytes, recorded in the keyring only
 * wrapped by the master key. Every key that protects the tenant's data is
 * derived from it per purpose: the keyed hashes that match identifiers, the
 * encryption of identifiers and secrets, the encryption of blobs. A master
 * key rotation re-wraps it and leaves it unchanged, so hashes keep matching
 * and every ciphertext stays readable.
 */
export class TenantDataKey {
  private readonly derived = new Map<string, Buffer>();

  constructor(
    readonly tenantId: string,
    /** `dk_` and 16 hex characters; every ciphertext names the key it was sealed under. */
    readonly id: string,
    private readonly secret: Buffer,
  ) {
    if (secret.length !== DATA_KEY_BYTES) throw new Error(`a tenant data key is ${DATA_KEY_BYTES} bytes`);
  }

  static generate(tenantId: string): TenantDataKey {
    return new TenantDataKey(tenantId, `dk_${randomBytes(8).toString('hex')}`, randomBytes(DATA_KEY_BYTES));
  }

  /** For wrapping under a master key only. */
  exportSecret(): Buffer {
    return Buffer.from(this.secret);
  }

  /** HMAC-SHA256 (base64url) of `value`; `purpose` separates kinds of values, e.g. `identifier` or `user-reference`. */
  hash(purpose: string, value: string): string {
    return createHmac('sha256', this.key(['hash', this.tenantId, purpose])).update(value, 'utf8').digest('base64url');
  }

  encrypt(plaintext: string): string {
    const sealed = sealedText(seal(this.key(['encrypt', this.tenantId]), this.tenantId, Buffer.from(plaintext, 'utf8')));
    return `${VALUE_FORMAT}.${this.id}.${sealed}`;
  }

  /** Throws when the text was altered, is not ours, names another key or belongs to another tenant. */
  decrypt(protectedText: string): string {
    const [format, keyId, ...sealed] = protectedText.split('.');
    if (format !== VALUE_FORMAT || sealed.length !== 3) throw new SealBrokenError('not a protected value (unknown format)');
    this.assertNamed(keyId);
    return unseal(this.key(['encrypt', this.tenantId]), this.tenantId, parseSealedText(sealed.join('.'))).toString('utf8');
  }

  /** The blob envelope: magic, format, key id, then the sealed bytes, bound to the tenant and the blob's name. */
  sealBlob(contentSha256: string, bytes: Buffer): Buffer {
    const { iv, tag, ciphertext } = seal(this.key(['blob', this.tenantId]), blobContext(this.tenantId, contentSha256), bytes);
    const keyId = Buffer.from(this.id, 'ascii');
    return Buffer.concat([BLOB_MAGIC, Buffer.from([BLOB_FORMAT, keyId.length]), keyId, iv, tag, ciphertext]);
  }

  openBlob(contentSha256: string, envelope: Buffer): Buffer {
    const header = BLOB_MAGIC.length + 2;
    if (envelope.length < header || !envelope.subarray(0, BLOB_MAGIC.length).equals(BLOB_MAGIC) || envelope[BLOB_MAGIC.length] !== BLOB_FORMAT) {
      throw new SealBrokenError('not a blob envelope (unknown format)');
    }
    const keyIdEnd = header + envelope[BLOB_MAGIC.length + 1];
    const ivEnd = keyIdEnd + SEALED_IV_BYTES;
    const tagEnd = ivEnd + SEALED_TAG_BYTES;
    if (envelope.length < tagEnd) throw new SealBrokenError('not a blob envelope (truncated)');
    this.assertNamed(envelope.subarray(header, keyIdEnd).toString('ascii'));
    const sealed = { iv: envelope.subarray(keyIdEnd, ivEnd), tag: envelope.subarray(ivEnd, tagEnd), ciphertext: envelope.subarray(tagEnd) };
    return unseal(this.key(['blob', this.tenantId]), blobContext(this.tenantId, contentSha256), sealed);
  }

  private assertNamed(keyId: string): void {
    if (keyId !== this.id) throw new SealBrokenError(`sealed under data key ${keyId}, not under this tenant's ${this.id}`);
  }

  private key(label: string[]): Buffer {
    const name = JSON.stringify(label);
    let key = this.derived.get(name);
    if (!key) {
      key = deriveKey(this.secret, DERIVATION_SALT, label);
      this.derived.set(name, key);
    }
    return key;
  }
}

function blobContext(tenantId: string, contentSha256: string): string {
  return JSON.stringify(['blob', tenantId, contentSha256]);
}

/** Where a tenant's data key comes from: the keyring in the event store (TenantKeyring in @ledger/ledger). */
export interface TenantKeySource {
  dataKey(tenantId: string): Promise<TenantDataKey>;
}
