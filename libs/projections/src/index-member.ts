import { fromRedisText, toRedisText } from './redis-text';

/**
 * How an index entry is stored: a member of a sorted set whose scores are all
 * 0, so Redis orders the members byte by byte (ZRANGE ... BYLEX). A member is
 * the entry's sort key, a NUL, then the document id, which orders the index
 * by (sort key, stored id) and gives the id back.
 *
 * Sort keys are printable ASCII (space to `~`). The NUL sorts below all of
 * it, so a key that is a prefix of another sorts first, as a string
 * comparison says; and it can never be part of a key, so the first NUL ends
 * the key whatever the id holds. ASCII also makes Redis's byte order the
 * order JavaScript's `<` gives the projection that computes the keys.
 *
 * The id is stored as the document's key holds it, UUIDs compacted
 * (redis-text.ts), so that the Lua scripts read the key of a member's
 * document out of it the same way (lua-scripts.ts).
 */
const SEPARATOR = '\0';
const SORT_KEY = /^[\x20-\x7e]*$/;

export function indexMember(sortKey: string | undefined, id: string): string {
  if (sortKey !== undefined && !SORT_KEY.test(sortKey)) throw new Error('an index sort key must be printable ASCII (space to ~)');
  return `${sortKey ?? ''}${SEPARATOR}${toRedisText(id)}`;
}

/** The entry a member stores; an empty sort key is no sort key. */
export function parseIndexMember(member: string): { sortKey?: string; id: string } {
  const separator = member.indexOf(SEPARATOR);
  if (separator < 0) throw new Error('not an index member: no separator');
  const sortKey = member.slice(0, separator);
  const id = fromRedisText(member.slice(separator + 1));
  return sortKey === '' ? { id } : { sortKey, id };
}

/** A cursor into an index: the last member a page read, opaque to callers (base64url, so it fits a URL). */
export function cursorOf(member: string): string {
  return Buffer.from(member, 'utf8').toString('base64url');
}

/**
 * A cursor from which a page starts at the first entry whose sort key is at
 * least `sortKey`: the member of that key with an empty id, which sorts just
 * before every entry of the key. For lists that start at a value (an
 * `updatedAfter`) rather than where a previous page stopped.
 */
export function cursorBeforeSortKey(sortKey: string): string {
  return cursorOf(indexMember(sortKey, ''));
}

/**
 * The member a cursor stands for. Node's base64url decoder skips what it
 * cannot read, so a cursor is accepted only when it is exactly the encoding
 * of the member it decodes to, and that member is well formed.
 */
export function memberOfCursor(cursor: string): string {
  const member = Buffer.from(cursor, 'base64url').toString('utf8');
  const separator = member.indexOf(SEPARATOR);
  if (cursorOf(member) !== cursor || separator < 0 || !SORT_KEY.test(member.slice(0, separator))) {
    throw new InvalidCursorError();
  }
  return member;
}

/** A cursor `pageByIndex` did not hand out: the caller's input, not a fault of the model (HTTP: 400). */
export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';

  constructor() {
    super('not a cursor of an index page');
  }
}
