import { sha256Hex } from '@ledger/platform';
import type { EventMetadata, RecordedEvent } from './event-store.port';

/**
 * The integrity chain (docs/architecture.md, "Integrity"). Each event's hash
 * covers its content as stored and the previous event's hash in the same
 * stream, so editing, removing or reordering an event breaks every later link.
 *
 * The hashed envelope. `hash` is the lowercase hex SHA-256 of the UTF-8 bytes of
 *
 *     P "\n" S "\n" R "\n" I "\n" T "\n" D "\n" M
 *
 * where
 * - P is the previous event's `hash` in the same stream (64 hex digits), or
 *   the empty string for revision 0;
 * - S, I and T are the stream id, the event id and the event type, each
 *   written as a JSON string literal the way ECMAScript's JSON.stringify
 *   writes one: in double quotes, with `"` and `\` escaped as `\"` and `\\`,
 *   U+0008, U+0009, U+000A, U+000C, U+000D as `\b`, `\t`, `\n`, `\f`, `\r`,
 *   the other code points below U+0020 and any lone surrogate as `\u` and
 *   four lowercase hex digits, and every other character as itself;
 * - R is the revision in decimal ASCII digits (no sign, no leading zeros);
 * - D and M are the event's data and metadata as JSON text produced by
 *   JSON.stringify (member order as inserted, no whitespace). The SQLite
 *   store keeps exactly these strings in the `data` and `metadata` columns
 *   of `events`, so an auditor recomputes a row's hash from its columns:
 *   previous_hash (NULL read as ""), stream_id, revision, event_id, type,
 *   data and metadata, with no JSON parsing at all. Metadata is the caller's
 *   metadata only: the link itself (`hash`, `previous_hash` columns, or the
 *   EventStoreDB adapter's `$integrity` member) is never part of it.
 *
 * No field can contain a raw line feed (JSON.stringify escapes it, hex and
 * digits have none), so the seven fields are recovered unambiguously by
 * splitting on "\n".
 *
 * Verification works from the events as read back (parsed objects): for any
 * JSON value, `JSON.stringify(JSON.parse(s)) === s` when `s` came from
 * JSON.stringify, so re-serialising what was read reproduces D and M on
 * both adapters (SQLite returns the stored text parsed; EventStoreDB stores
 * the JSON its client writes with JSON.stringify and returns it parsed).
 */

/** The part of an event that its hash covers (metadata without integrity fields). */
export interface HashedContent {
  streamId: string;
  revision: number;
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/** The first place where a stream's chain does not hold. */
export interface IntegrityBreak {
  stream: string;
  revision: number;
  /** `hash`: content edited; `previous_hash`: a link missing or moved; `revision`: a gap in revisions. */
  reason: 'hash' | 'previous_hash' | 'revision';
  expected: string | null;
  found: string | null;
}

/**
 * The JSON text an event's data or metadata is stored and hashed as:
 * JSON.stringify, with `null` for a value JSON cannot represent (undefined).
 */
export function storedJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The hash of an event given as objects: serialises data and metadata with `storedJson`, then `hashEventText`. */
export function computeEventHash(previousHash: string | null, event: HashedContent): string {
  return hashEventText(
    previousHash,
    event.streamId,
    event.revision,
    event.id,
    event.type,
    storedJson(event.data),
    storedJson(event.metadata),
  );
}

/**
 * The hash of an event whose data and metadata the writer already holds as
 * stored JSON text (the SQLite store hashes exactly the strings it stores).
 * See the envelope above.
 */
export function hashEventText(
  previousHash: string | null,
  streamId: string,
  revision: number,
  id: string,
  type: string,
  dataText: string,
  metadataText: string,
): string {
  return sha256Hex(
    `${previousHash ?? ''}\n${JSON.stringify(streamId)}\n${revision}\n${JSON.stringify(id)}\n` +
      `${JSON.stringify(type)}\n${dataText}\n${metadataText}`,
  );
}

/** Where a stream's chain stands: its last revision and that event's stored hash. */
export interface ChainHead {
  revision: number;
  hash: string;
}

/**
 * Checks one stream's events (in revision order, from revision 0) and returns
 * the first break, or null when the chain is intact.
 */
export function verifyStream(events: RecordedEvent[]): IntegrityBreak | null {
  let head: ChainHead | null = null;
  for (const event of events) {
    const broken = verifyLink(head, event);
    if (broken !== null) return broken;
    head = { revision: event.revision, hash: event.integrity.hash };
  }
  return null;
}

/**
 * The rule for one event, shared by `verifyStream` and `verifyLedger`: it is
 * the revision after `head` (revision 0 when the stream has no event before
 * it, so a stream whose first event was removed breaks too), it links to
 * `head`'s stored hash, and its content hashes to its own stored hash.
 */
export function verifyLink(head: ChainHead | null, event: RecordedEvent): IntegrityBreak | null {
  const at = { stream: event.streamId, revision: event.revision };
  const revision = head === null ? 0 : head.revision + 1;
  if (event.revision !== revision) {
    return { ...at, reason: 'revision', expected: String(revision), found: String(event.revision) };
  }
  const previousHash = head === null ? null : head.hash;
  if (event.integrity.previousHash !== previousHash) {
    return { ...at, reason: 'previous_hash', expected: previousHash, found: event.integrity.previousHash };
  }
  const expected = computeEventHash(previousHash, event);
  if (event.integrity.hash !== expected) {
    return { ...at, reason: 'hash', expected, found: event.integrity.hash };
  }
  return null;
}

