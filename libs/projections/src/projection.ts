import type { RecordedEvent } from '@ledger/event-store';

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
}

/**
 * A projection of any document type. `evolve` takes the document as an
 * argument, so a DocumentProjection<Customer> is not a DocumentProjection<unknown>;
 * collections of projections use this alias instead.
 */
export type AnyDocumentProjection = DocumentProjection<any>;

/** What one batch changes, ready to be written. */
export interface BatchWrites<TDoc> {
  put: Array<{ id: string; doc: TDoc }>;
  remove: string[];
  indexAdd: Array<IndexEntry & { id: string }>;
  indexRemove: Array<IndexEntry & { id: string }>;
}

/** Every document id the events touch, each once, in first-touched order. */
export function touchedIds<TDoc>(projection: DocumentProjection<TDoc>, events: readonly RecordedEvent[]): string[] {
  return [...new Set(events.flatMap((event) => projection.route(event)))];
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
  for (const event of events) {
    for (const id of new Set(projection.route(event))) {
      docs.set(id, projection.evolve(docs.get(id) ?? null, event));
    }
  }
  return docs;
}

/** The writes that turn the `before` documents into the `after` ones, index entries included. */
export function diffBatch<TDoc>(
  projection: DocumentProjection<TDoc>,
  before: ReadonlyMap<string, TDoc | null>,
  after: ReadonlyMap<string, TDoc | null>,
): BatchWrites<TDoc> {
  const writes: BatchWrites<TDoc> = { put: [], remove: [], indexAdd: [], indexRemove: [] };
  for (const [id, next] of after) {
    const previous = before.get(id) ?? null;
    if (JSON.stringify(previous) === JSON.stringify(next)) continue;
    if (next === null) writes.remove.push(id);
    else writes.put.push({ id, doc: next });
    // An entry moved to another sort key is another member: the old one is removed, the new one added.
    const oldEntries = indexEntriesOf(projection, previous);
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
