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
/** A doubled escape, or an escape and a UUID's 16 bytes in base64url. */
const STORED = /\x01(\x01|[A-Za-z0-9_-]{22})/g;

export function toRedisText(text: string): string {
  return text.replaceAll(ESCAPE, ESCAPE + ESCAPE).replace(UUID, (uuid) => ESCAPE + Buffer.from(uuid.replaceAll('-', ''), 'hex').toString('base64url'));
}

export function fromRedisText(stored: string): string {
  return stored.replace(STORED, (_, escaped: string) => {
    if (escaped === ESCAPE) return ESCAPE;
    const hex = Buffer.from(escaped, 'base64url').toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
}
