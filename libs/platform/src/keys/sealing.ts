import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM output: a fresh 96-bit nonce, the authentication tag and the ciphertext. */
export interface Sealed {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/**
 * AES-256-GCM under `key` with a random nonce, which every sealed value in
 * the ledger uses (identifier ciphertexts, wrapped tenant data keys, blob
 * envelopes). `context` is authenticated, not encrypted: it binds the
 * ciphertext to where it belongs (tenant, key id, blob name), so one moved
 * elsewhere fails to open.
 */
export function seal(key: Buffer, context: string, plaintext: Buffer): Sealed {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

/** Throws SealBrokenError when the value was altered, or sealed under another key or context. */
export function unseal(key: Buffer, context: string, { iv, tag, ciphertext }: Sealed): Buffer {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealBrokenError('bad lengths');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    // Node's message ("Unsupported state or unable to authenticate data") says nothing useful to a caller.
    throw new SealBrokenError('failed authentication: altered, or not sealed under this key for this place');
  }
}

/** `iv.tag.ciphertext`, each base64url: how sealed values travel inside event data. */
export function sealedText({ iv, tag, ciphertext }: Sealed): string {
  return [iv, tag, ciphertext].map((part) => part.toString('base64url')).join('.');
}

export function parseSealedText(text: string): Sealed {
  const parts = text.split('.');
  if (parts.length !== 3) throw new SealBrokenError('not a sealed value');
  const [iv, tag, ciphertext] = parts.map((part) => Buffer.from(part, 'base64url'));
  return { iv, tag, ciphertext };
}

export const SEALED_IV_BYTES = IV_BYTES;
export const SEALED_TAG_BYTES = TAG_BYTES;

/**
 * A 32-byte key for one use of `root`, by HKDF-SHA256. The info is JSON so
 * that no tenant id or purpose can be crafted to collide with another label;
 * the salt is fixed and public, the strength coming from the 32-byte root.
 */
export function deriveKey(root: Buffer, salt: string, label: readonly string[]): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.from(salt, 'utf8'), Buffer.from(JSON.stringify(label), 'utf8'), 32));
}

export class SealBrokenError extends Error {
  override name = 'SealBrokenError';
}
