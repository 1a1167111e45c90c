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
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const COMPACT_UUID_LENGTH = 22;

export function toRedisText(text: string): string {
  return text.replaceAll(ESCAPE, ESCAPE + ESCAPE).replace(UUID, (uuid) => ESCAPE + Buffer.from(uuid.replaceAll('-', ''), 'hex').toString('base64url'));
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
