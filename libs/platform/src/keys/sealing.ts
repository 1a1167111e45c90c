import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { slicesOf } from '../slices';

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
  const cipher = cipherFor(key, context, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

/**
 * `seal` for large plaintexts (blobs), laid out as `header`, nonce, tag,
 * ciphertext in one buffer: encrypted a slice per turn of the event loop
 * straight into its place, so sealing an upload neither holds other
 * requests up nor copies the whole ciphertext once more to lay it out.
 */
export async function sealAfter(header: Buffer, key: Buffer, context: string, plaintext: Buffer): Promise<Buffer> {
  const iv = randomBytes(IV_BYTES);
  const sealed = Buffer.allocUnsafe(header.length + IV_BYTES + TAG_BYTES + plaintext.length);
  header.copy(sealed);
  iv.copy(sealed, header.length);
  const cipher = cipherFor(key, context, iv);
  let at = header.length + IV_BYTES + TAG_BYTES;
  for await (const slice of slicesOf(plaintext)) at += cipher.update(slice).copy(sealed, at);
  at += cipher.final().copy(sealed, at);
  cipher.getAuthTag().copy(sealed, header.length + IV_BYTES);
  return sealed.subarray(0, at);
}

/** Throws SealBrokenError when the value was altered, or sealed under another key or context. */
export function unseal(key: Buffer, context: string, { iv, tag, ciphertext }: Sealed): Buffer {
  const decipher = decipherFor(key, context, iv, tag);
  return authenticated(() => Buffer.concat([decipher.update(ciphertext), decipher.final()]));
}

/**
 * `unseal` of what `sealAfter` laid out after a header of `headerBytes`,
 * a slice per turn of the event loop. Nothing of the plaintext is returned
 * unless all of it authenticates.
 */
export async function openAfter(headerBytes: number, key: Buffer, context: string, sealed: Buffer): Promise<Buffer> {
  const ciphertextAt = headerBytes + IV_BYTES + TAG_BYTES;
  if (sealed.length < ciphertextAt) throw new SealBrokenError('truncated');
  const decipher = decipherFor(key, context, sealed.subarray(headerBytes, headerBytes + IV_BYTES), sealed.subarray(headerBytes + IV_BYTES, ciphertextAt));
  const plaintext = Buffer.allocUnsafe(sealed.length - ciphertextAt);
  let at = 0;
  for await (const slice of slicesOf(sealed.subarray(ciphertextAt))) at += decipher.update(slice).copy(plaintext, at);
  return authenticated(() => {
    at += decipher.final().copy(plaintext, at);
    return plaintext.subarray(0, at);
  });
}

function cipherFor(key: Buffer, context: string, iv: Buffer) {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  return cipher;
}

function decipherFor(key: Buffer, context: string, iv: Buffer, tag: Buffer) {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealBrokenError('bad lengths');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  return decipher;
}

function authenticated<T>(finish: () => T): T {
  try {
    return finish();
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
