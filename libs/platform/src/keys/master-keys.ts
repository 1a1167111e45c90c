import { createHmac } from 'node:crypto';
import { SealBrokenError, deriveKey, parseSealedText, seal, sealedText, unseal } from './sealing';

/**
 * A master key (LEDGER_MASTER_KEY, or one of LEDGER_PREVIOUS_MASTER_KEYS) and
 * its id. The master key wraps tenant data keys, and seals the short-lived
 * references that travel through a browser before any tenant is known
 * (`sealInTransit`); nothing recorded is encrypted or hashed under it, so
 * replacing it means re-wrapping those few keys (`ledger keys rotate`),
 * never rewriting an event, and a reference sealed under the old key opens
 * while that key is kept among the previous ones.
 */
export interface MasterKey {
  /** `mk_` and 16 hex characters: names the key in wrapped data keys and messages without revealing it. */
  id: string;
  secret: Buffer;
}

/** The master keys a process holds: the current one wraps new data keys; previous ones only unwrap, during a rotation. */
export interface MasterKeys {
  current: MasterKey;
  previous: MasterKey[];
}

/** A tenant data key sealed under one master key, as recorded in the keyring. */
export interface WrappedDataKey {
  masterKeyId: string;
  /** `iv.tag.ciphertext` (base64url). */
  wrappedKey: string;
}

const MASTER_KEY_BYTES = 32;
const WRAPPING_SALT = 'consent-ledger/tenant-data-key-wrapping';

export function masterKey(secret: Buffer): MasterKey {
  if (secret.length !== MASTER_KEY_BYTES) throw new Error(`a master key is ${MASTER_KEY_BYTES} bytes`);
  const id = createHmac('sha256', secret).update('consent-ledger/master-key-id').digest('hex').slice(0, 16);
  return { id: `mk_${id}`, secret };
}

export function masterKeys(current: Buffer, previous: readonly Buffer[] = []): MasterKeys {
  return { current: masterKey(current), previous: previous.map(masterKey) };
}

export function wrapDataKey(master: MasterKey, tenantId: string, dataKeyId: string, secret: Buffer): WrappedDataKey {
  return { masterKeyId: master.id, wrappedKey: sealedText(seal(wrappingKey(master), wrappingContext(tenantId, dataKeyId), secret)) };
}

/**
 * The data key's secret from the newest of its wrappings under a master key
 * this process holds; null when it holds none of them.
 */
export function unwrapDataKey(keys: MasterKeys, tenantId: string, dataKeyId: string, wrappings: readonly WrappedDataKey[]): Buffer | null {
  const held = new Map([keys.current, ...keys.previous].map((key) => [key.id, key]));
  for (const wrapping of [...wrappings].reverse()) {
    const master = held.get(wrapping.masterKeyId);
    if (master) return unseal(wrappingKey(master), wrappingContext(tenantId, dataKeyId), parseSealedText(wrapping.wrappedKey));
  }
  return null;
}

function wrappingKey(master: MasterKey): Buffer {
  return deriveKey(master.secret, WRAPPING_SALT, ['wrap']);
}

const TRANSIT_SALT = 'consent-ledger/in-transit';

/**
 * `plaintext` sealed for a round trip through someone's browser (a page's
 * address), under a key derived from the current master key for `purpose`:
 * one base64url token (nonce, tag, ciphertext) that reveals nothing of
 * what it holds and cannot be altered or moved to another purpose.
 */
export function sealInTransit(keys: MasterKeys, purpose: string, plaintext: Buffer): string {
  const { iv, tag, ciphertext } = seal(transitKey(keys.current, purpose), purpose, plaintext);
  return Buffer.concat([iv, tag, ciphertext]).toString('base64url');
}

/** What `sealInTransit` sealed for `purpose`, under the current or a previous master key; null for anything else. */
export function openInTransit(keys: MasterKeys, purpose: string, token: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]{38,}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  const sealed = { iv: bytes.subarray(0, 12), tag: bytes.subarray(12, 28), ciphertext: bytes.subarray(28) };
  for (const master of [keys.current, ...keys.previous]) {
    try {
      return unseal(transitKey(master, purpose), purpose, sealed);
    } catch (error) {
      if (!(error instanceof SealBrokenError)) throw error;
    }
  }
  return null;
}

function transitKey(master: MasterKey, purpose: string): Buffer {
  return deriveKey(master.secret, TRANSIT_SALT, [purpose]);
}

/** A wrapped key moved to another tenant or renamed fails to unwrap. */
function wrappingContext(tenantId: string, dataKeyId: string): string {
  return JSON.stringify(['tenant-data-key', tenantId, dataKeyId]);
}

/**
 * Why a master key is too weak to protect a production ledger, or null.
 * A random 32-byte key has about 30 distinct bytes, no period, no constant
 * step and almost never only printable characters (odds about 1 in 10^14);
 * keys that fail these were typed, padded or left at a placeholder.
 */
export function weakMasterKeyReason(secret: Buffer): string | null {
  const distinct = new Set(secret).size;
  if (distinct < 16) return `too few distinct bytes (${distinct}; a random key has about 30)`;
  for (let period = 1; period <= secret.length / 2; period += 1) {
    if (secret.every((byte, index) => byte === secret[index % period])) return `it repeats a ${period}-byte pattern`;
  }
  const step = (secret[1] - secret[0] + 256) % 256;
  if (secret.every((byte, index) => index === 0 || (byte - secret[index - 1] + 256) % 256 === step)) return 'it is a counting sequence';
  if (secret.every((byte) => byte >= 0x20 && byte <= 0x7e)) return 'it is printable text, not random bytes';
  return null;
}
