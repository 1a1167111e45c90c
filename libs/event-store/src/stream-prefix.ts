/**
 * The ids that begin with `prefix`, as a range of byte order (what SQLite's
 * BINARY and PostgreSQL's "C" collation compare): from the prefix itself to
 * the prefix with its last character one higher, excluded. Stream ids are
 * ASCII, and so must a prefix be, below `~` so that its last character has
 * a successor: a range is then exactly the ids with the prefix.
 */
export function streamPrefixRange(prefix: string): { from: string; before: string } {
  if (!/^[\x20-\x7d]+$/.test(prefix)) throw new TypeError(`a stream prefix is printable ASCII below "~", not ${JSON.stringify(prefix)}`);
  const last = prefix.charCodeAt(prefix.length - 1);
  return { from: prefix, before: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}
