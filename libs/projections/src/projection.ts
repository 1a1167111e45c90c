import { canonicalJson, RecordedEvent } from '@ledger/event-store';
import type { DocumentCompression } from './document-compression';

/**
 * One lookup a document is findable under: the documents listed under an
 * index's value, in the order of their sort keys, then of their ids.
 */
export interface IndexEntry {
  index: string;
  value: string;
  /**
   * Where the document stands among the value's documents. Without one (or
   * empty), documents are ordered by id, ahead of those with one. Printable
   * ASCII, compared character by character, so the projection makes keys of
   * fixed width (a zero-padded epoch ms, not a bare number: "9" sorts after "10").
   */
  sortKey?: string;
}

/**
 * A read model made of JSON documents keyed by id, derived from the event log
 * by pure functions. The runner feeds it every event in global order, live and
 * during a rebuild alike, so both produce the same documents.
 */
export interface DocumentProjection<TDoc> {
  /** Names the Redis keys; letters, digits, `-` and `_` only. */
  name: string;
  /** Bump when the document shape or the rules change: the model is rebuilt into a new generation. */
  version: number;
  /** The ids of the documents an event touches ([] to ignore the event). Ids include the tenant. */
  route(event: RecordedEvent): string[];
  /** The next document (null deletes it). Pure. */
  evolve(doc: TDoc | null, event: RecordedEvent): TDoc | null;
  /** Secondary indexes the document is findable under; index names contain no `:`. */
  indexes?(doc: TDoc): IndexEntry[];
  /** Store the documents deflated with this dictionary (decision 0084); changing it needs a new version. */
  compression?: DocumentCompression;
  /**
   * Keep the documents as the fields of one Redis hash per group instead of
   * a key each (decision 0088): for many small documents that are read
   * together, a group at a time (`ReadModel.readGroup`), where Redis's own
   * cost per key would be most of what each takes. Every id is then
   * `groupedId(group, field)`. A grouped projection has no indexes (the
   * group is its lookup) and does not compress.
   */
  grouped?: boolean;
}

/** Between a grouped document's group and its field in its id; a group never contains it. */
const GROUP_SEPARATOR = '#';

/** The id of a grouped projection's document (`grouped`): the field `field` of the group `group`. */
export function groupedId(group: string, field: string): string {
  if (group.includes(GROUP_SEPARATOR)) throw new Error(`a document group contains no "${GROUP_SEPARATOR}": ${group}`);
  return `${group}${GROUP_SEPARATOR}${field}`;
}

/** The group and the field a grouped document's id names. */
export function splitGroupedId(id: string): { group: string; field: string } {
  const separator = id.indexOf(GROUP_SEPARATOR);
  if (separator < 0) throw new Error(`not the id of a grouped document: ${id}`);
  return { group: id.slice(0, separator), field: id.slice(separator + 1) };
}

/**
 * A projection of any document type. `evolve` takes the document as an
 * argument, so a DocumentProjection<Customer> is not a DocumentProjection<unknown>;
 * collections of projections use this alias instead.
 */
export type AnyDocumentProjection = DocumentProjection<any>;

/**
 * A document as Redis holds it: its text is `canonicalJson(doc)`, so equal
 * content is equal text, a batch that leaves a document as it was is seen by
 * comparing two strings, and the digest hashes the text as stored.
 */
export interface StoredDocument<TDoc> {
  doc: TDoc;
  text: string;
}

export function storedDocument<TDoc>(doc: TDoc): StoredDocument<TDoc> {
  return { doc, text: canonicalJson(doc) };
}

/** A stored text read back (JSON.parse keeps the canonical key order). */
export function parseStoredDocument<TDoc>(text: string): StoredDocument<TDoc> {
  return { doc: JSON.parse(text) as TDoc, text };
}

/** What one batch changes, ready to be written. */
export interface BatchWrites {
  put: Array<{ id: string; text: string }>;
  remove: string[];
  indexAdd: Array<IndexEntry & { id: string }>;
  indexRemove: Array<IndexEntry & { id: string }>;
}

/**
 * The events of a batch the projection routes, with the ids each touches
 * (route runs once per event), and every touched id once, in first-touched order.
 */
export interface RoutedBatch {
  routed: Array<{ event: RecordedEvent; ids: readonly string[] }>;
  ids: string[];
}

export function routeBatch<TDoc>(projection: DocumentProjection<TDoc>, events: readonly RecordedEvent[]): RoutedBatch {
  const routed: RoutedBatch['routed'] = [];
  const ids = new Set<string>();
  for (const event of events) {
    const routes = projection.route(event);
    if (routes.length === 0) continue;
    const unique = routes.length === 1 ? routes : [...new Set(routes)];
    routed.push({ event, ids: unique });
    for (const id of unique) ids.add(id);
  }
  return { routed, ids: [...ids] };
}

/** Every document id the events touch, each once, in first-touched order. */
export function touchedIds<TDoc>(projection: DocumentProjection<TDoc>, events: readonly RecordedEvent[]): string[] {
  return routeBatch(projection, events).ids;
}

/**
 * Folds the events over the documents they touch. `loaded` holds every touched
 * document as stored before the batch (null when absent); the result holds
 * each touched document after the batch.
 */
export function evolveBatch<TDoc>(
  projection: DocumentProjection<TDoc>,
  loaded: ReadonlyMap<string, TDoc | null>,
  events: readonly RecordedEvent[],
): Map<string, TDoc | null> {
  const docs = new Map(loaded);
  foldRouted(projection, docs, routeBatch(projection, events));
  return docs;
}

/** `evolveBatch` on routes already taken, folding into `docs` in place (it holds every routed id). */
export function foldRouted<TDoc>(projection: DocumentProjection<TDoc>, docs: Map<string, TDoc | null>, { routed }: RoutedBatch): void {
  for (const { event, ids } of routed) {
    for (const id of ids) docs.set(id, projection.evolve(docs.get(id) ?? null, event));
  }
}

/**
 * The writes that turn the `before` documents into the `after` ones, index
 * entries included. Each document is encoded once, and only one whose text
 * changed is written.
 */
export function diffBatch<TDoc>(
  projection: DocumentProjection<TDoc>,
  before: ReadonlyMap<string, StoredDocument<TDoc> | null>,
  after: ReadonlyMap<string, TDoc | null>,
): BatchWrites {
  const writes: BatchWrites = { put: [], remove: [], indexAdd: [], indexRemove: [] };
  for (const [id, next] of after) {
    const previous = before.get(id) ?? null;
    const text = next === null ? null : canonicalJson(next);
    if (text === (previous?.text ?? null)) continue;
    if (text === null) writes.remove.push(id);
    else writes.put.push({ id, text });
    if (!projection.indexes) continue;
    // An entry moved to another sort key is another member: the old one is removed, the new one added.
    const oldEntries = indexEntriesOf(projection, previous?.doc ?? null);
    const newEntries = indexEntriesOf(projection, next);
    for (const [key, entry] of newEntries) if (!oldEntries.has(key)) writes.indexAdd.push({ ...entry, id });
    for (const [key, entry] of oldEntries) if (!newEntries.has(key)) writes.indexRemove.push({ ...entry, id });
  }
  return writes;
}

function indexEntriesOf<TDoc>(projection: DocumentProjection<TDoc>, doc: TDoc | null): Map<string, IndexEntry> {
  const entries = doc === null || !projection.indexes ? [] : projection.indexes(doc);
  return new Map(entries.map((entry) => [JSON.stringify([entry.index, entry.value, entry.sortKey ?? '']), entry]));
}
