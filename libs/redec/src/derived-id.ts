import { sha256Hex } from '@ledger/platform';

/**
 * The parts of a composite identity joined with NUL, refusing NUL in any
 * part but the last: with NUL only ever at the joins (and, in data recorded
 * before the edge refused it, in the last part, where it cannot move a
 * boundary) two different tuples of one length never give one text, and the
 * ids already recorded keep the text they were derived from
 * (docs/decisions/0065-identity-text.md). The edge refuses every control
 * character in an identity field, so this only ever stops a caller that skipped it.
 */
export function joinedIdentity(...parts: string[]): string {
  parts.slice(0, -1).forEach((part, index) => {
    if (part.includes('\u0000')) throw new Error(`Part ${index} of a composite identity contains NUL, which would join it to the next part.`);
  });
  return parts.join('\u0000');
}

/**
 * A UUID-shaped id (version 8, RFC 9562) derived from its parts, so the same
 * parts always name the same stream: a retry after a crash finds the stream
 * the first attempt wrote. The parts are joined by joinedIdentity.
 */
export function derivedUuid(...parts: string[]): string {
  const hex = sha256Hex(joinedIdentity(...parts));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
