import { sha256Hex } from '@ledger/platform';

/**
 * A UUID-shaped id (version 8, RFC 9562) derived from its parts, so the same
 * parts always name the same stream: a retry after a crash finds the stream
 * the first attempt wrote. Parts are joined with NUL, which no part contains.
 */
export function derivedUuid(...parts: string[]): string {
  const hex = sha256Hex(parts.join('\u0000'));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
