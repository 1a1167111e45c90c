import { createHmac, randomBytes } from 'node:crypto';
import { SealBrokenError, deriveKey, openAfter, parseSealedText, seal, sealAfter, sealedText, unseal } from './sealing';

const DATA_KEY_BYTES = 32;
const DERIVATION_SALT = 'consent-ledger/tenant-data-key';
/** Identifier ciphertexts: `v2.<dataKeyId>.<iv>.<tag>.<ciphertext>`. v1 (decision 0012 and before) named no key. */
const VALUE_FORMAT = 'v2';
/** Blob envelopes start with these bytes, then a format byte, the key id's length and the key id. */
const BLOB_MAGIC = Buffer.from('LDGB', 'ascii');
const BLOB_FORMAT = 1;

/**
 * One tenant's data key: 32 random bytes, recorded in the keyring only
 * wrapped by the master key. A customer's data key (id `ck_`, decision 0035)
 * is the same kind of key, wrapped by its tenant's key in the key table
 * instead: its own random secret makes every key derived from it
 * independent of the tenant's and of other customers', so destroying it
 * leaves nothing sealed under it that any other key opens. Every key that protects the tenant's data is
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

  /** `dk` for a tenant's key, `ck` for a customer's, `rk` for a report's (decision 0045). */
  static generate(tenantId: string, kind: 'dk' | 'ck' | 'rk' = 'dk'): TenantDataKey {
    return new TenantDataKey(tenantId, `${kind}_${randomBytes(8).toString('hex')}`, randomBytes(DATA_KEY_BYTES));
  }

  /** A customer's data key sealed under this tenant key, bound to the customer and the key's id: `iv.tag.ciphertext`. */
  wrapCustomerKey(customerId: string, customerKey: TenantDataKey): string {
    return this.wrap(['customer-data-key', this.tenantId, customerId, customerKey.id], customerKey);
  }

  unwrapCustomerKey(customerId: string, dataKeyId: string, wrappedKey: string): TenantDataKey {
    return this.unwrap(['customer-data-key', this.tenantId, customerId, dataKeyId], dataKeyId, wrappedKey);
  }

  /** A report's key (decision 0045) sealed under this tenant key, bound to the report and the key's id. */
  wrapReportKey(reportId: string, reportKey: TenantDataKey): string {
    return this.wrap(['report-key', this.tenantId, reportId, reportKey.id], reportKey);
  }

  unwrapReportKey(reportId: string, dataKeyId: string, wrappedKey: string): TenantDataKey {
    return this.unwrap(['report-key', this.tenantId, reportId, dataKeyId], dataKeyId, wrappedKey);
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

  /**
   * The blob envelope: magic, format, key id, then the sealed bytes, bound
   * to the tenant and the blob's name. Sealed a slice per turn of the event
   * loop, since a blob may be a 15 MB recording.
   */
  sealBlob(name: string, bytes: Buffer): Promise<Buffer> {
    const keyId = Buffer.from(this.id, 'ascii');
    const header = Buffer.concat([BLOB_MAGIC, Buffer.from([BLOB_FORMAT, keyId.length]), keyId]);
    return sealAfter(header, this.key(['blob', this.tenantId]), blobContext(this.tenantId, name), bytes);
  }

  async openBlob(name: string, envelope: Buffer): Promise<Buffer> {
    const keyId = blobEnvelopeKeyId(envelope);
    if (keyId === null) throw new SealBrokenError('not a blob envelope (unknown format)');
    this.assertNamed(keyId);
    return openAfter(BLOB_MAGIC.length + 2 + keyId.length, this.key(['blob', this.tenantId]), blobContext(this.tenantId, name), envelope);
  }

  private wrap(context: string[], wrapped: TenantDataKey): string {
    return sealedText(seal(this.key(['wrap', this.tenantId]), JSON.stringify(context), wrapped.exportSecret()));
  }

  private unwrap(context: string[], dataKeyId: string, wrappedKey: string): TenantDataKey {
    return new TenantDataKey(this.tenantId, dataKeyId, unseal(this.key(['wrap', this.tenantId]), JSON.stringify(context), parseSealedText(wrappedKey)));
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

/** Which key sealed a blob envelope: its magic, format and key id, read without opening it. */
export function blobEnvelopeKeyId(envelope: Buffer): string | null {
  const header = BLOB_MAGIC.length + 2;
  if (envelope.length < header || !envelope.subarray(0, BLOB_MAGIC.length).equals(BLOB_MAGIC) || envelope[BLOB_MAGIC.length] !== BLOB_FORMAT) return null;
  return envelope.subarray(header, header + envelope[BLOB_MAGIC.length + 1]).toString('ascii');
}

/** Which key sealed a protected value (`v2.<dataKeyId>.…`); null when it is not one. */
export function protectedValueKeyId(protectedText: string): string | null {
  const [format, keyId] = protectedText.split('.');
  return format === VALUE_FORMAT && keyId ? keyId : null;
}

function blobContext(tenantId: string, name: string): string {
  return JSON.stringify(['blob', tenantId, name]);
}

/** Where a tenant's data key comes from: the keyring in the event store (TenantKeyring in @ledger/ledger). */
export interface TenantKeySource {
  dataKey(tenantId: string): Promise<TenantDataKey>;
}

/** Where a customer's data key comes from: the key table (CustomerKeyring in @ledger/ledger). */
export interface CustomerKeySource {
  /** The customer's key, created on first use; throws `customer_data_erased` (409) once it was destroyed. */
  keyFor(tenantId: string, customerId: string): Promise<TenantDataKey>;
  /** The key a ciphertext or envelope names; null once destroyed (or never known in this tenant). */
  keyNamed(tenantId: string, dataKeyId: string): Promise<TenantDataKey | null>;
}

/**
 * Where a report's key comes from (decision 0045): the key table
 * (ReportKeyring in @ledger/ledger). Under it go the report's stored bytes
 * and the hash of its content; destroying it with the content leaves no
 * copy of that hash to test guesses against.
 */
export interface ReportKeySource {
  /** The report's key, created on first use; throws `report_content_erased` (410) once it was destroyed. */
  keyFor(tenantId: string, reportId: string): Promise<TenantDataKey>;
  /** The report's key; null once destroyed, or when it never had one. */
  keyOf(tenantId: string, reportId: string): Promise<TenantDataKey | null>;
}

export const CUSTOMER_KEY_PREFIX = 'ck_';
