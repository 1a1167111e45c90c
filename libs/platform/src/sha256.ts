import { BinaryLike, createHash, hash } from 'node:crypto';
import { slicesOf } from './slices';

/**
 * SHA-256 of `data` (a string as UTF-8) in lower-case hex, the form of every
 * content hash, request hash and derived name. One-shot `crypto.hash` is
 * about twice as fast as a Hash object for the short inputs of the request
 * path (a request body, a stream's parts, an API key's secret).
 */
export function sha256Hex(data: BinaryLike): string {
  return hash('sha256', data, 'hex');
}

/** SHA-256 of `data` as bytes, for comparisons in constant time. */
export function sha256Bytes(data: BinaryLike): Buffer {
  return hash('sha256', data, 'buffer');
}

/**
 * `sha256Hex` of large bytes (a blob), a slice per turn of the event loop
 * so that hashing an upload never holds other requests up.
 */
export async function sha256HexInSlices(bytes: Buffer): Promise<string> {
  const digest = createHash('sha256');
  for await (const slice of slicesOf(bytes)) digest.update(slice);
  return digest.digest('hex');
}
