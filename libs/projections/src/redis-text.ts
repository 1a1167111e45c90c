/**
 * Ids and index values as Redis holds them in the read model's keys and
 * index members: each lowercase UUID written in 23 characters instead of 36
 * (a \x01, then its 16 bytes in base64url), and any \x01 of the text doubled,
 * so that every text comes back as it was. Most ids are a tenant's UUID and
 * an entity's, so a key name is about 26 characters shorter; and an index
 * member (a NUL and such an id) is 50 characters instead of 74, within the
 * 64 up to which Redis keeps a small sorted set as a listpack rather than a
 * skiplist: about 1 KB less per index key that holds a few entries, which
 * is most of them (decision 0081). The Lua scripts never look inside: they
 * join and compare these texts as they are.
 */
const ESCAPE = '\x01';
const UUID_LENGTH = 36;
const COMPACT_UUID_LENGTH = 22;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Where a UUID's 32 hex digits are, after its start. */
const DIGITS = [...Array(UUID_LENGTH).keys()].filter((offset) => ![8, 13, 18, 23].includes(offset));

export function toRedisText(text: string): string {
  let stored = '';
  let from = 0;
  for (let at = 0; at + UUID_LENGTH <= text.length; at += 1) {
    if (!isUuidAt(text, at)) continue;
    stored += escaped(text.slice(from, at)) + ESCAPE + compactUuid(text, at);
    from = at + UUID_LENGTH;
    at = from - 1;
  }
  return from === 0 ? escaped(text) : stored + escaped(text.slice(from));
}

function escaped(text: string): string {
  return text.includes(ESCAPE) ? text.replaceAll(ESCAPE, ESCAPE + ESCAPE) : text;
}

/**
 * Found and encoded by hand rather than by a regular expression and a
 * Buffer: a rebuild writes every key through here, and those cost about
 * twice as much.
 */
function isUuidAt(text: string, at: number): boolean {
  const dash = 0x2d;
  if (text.charCodeAt(at + 8) !== dash || text.charCodeAt(at + 13) !== dash || text.charCodeAt(at + 18) !== dash || text.charCodeAt(at + 23) !== dash) return false;
  for (const offset of DIGITS) if (nibbleAt(text, at + offset) < 0) return false;
  return true;
}

/** The value of a lowercase hex digit, -1 for any other character. */
function nibbleAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

const BASE64URL_CODES = Array.from(BASE64URL, (character) => character.charCodeAt(0));

/** The base64url of the 16 bytes the UUID at `at` spells. */
function compactUuid(text: string, at: number): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i += 1) bytes[i] = nibbleAt(text, at + DIGITS[2 * i]) * 16 + nibbleAt(text, at + DIGITS[2 * i + 1]);
  const codes: number[] = [];
  for (let i = 0; i < 15; i += 3) {
    const triple = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    codes.push(BASE64URL_CODES[triple >> 18], BASE64URL_CODES[(triple >> 12) & 63], BASE64URL_CODES[(triple >> 6) & 63], BASE64URL_CODES[triple & 63]);
  }
  codes.push(BASE64URL_CODES[bytes[15] >> 2], BASE64URL_CODES[(bytes[15] & 3) << 4]);
  return String.fromCharCode(...codes);
}

export function fromRedisText(stored: string): string {
  if (!stored.includes(ESCAPE)) return stored;
  let text = '';
  for (let i = 0; i < stored.length; i += 1) {
    if (stored[i] !== ESCAPE) {
      text += stored[i];
    } else if (stored[i + 1] === ESCAPE) {
      text += ESCAPE;
      i += 1;
    } else {
      const hex = Buffer.from(stored.slice(i + 1, i + 1 + COMPACT_UUID_LENGTH), 'base64url').toString('hex');
      text += `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      i += COMPACT_UUID_LENGTH;
    }
  }
  return text;
}
