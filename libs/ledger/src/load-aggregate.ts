import { EventStore, ExpectedRevision, readAllPages } from '@ledger/event-store';

/**
 * The folded states of recently loaded streams of one kind, at most
 * `capacity` of them, the least recently used dropped first. An entry is
 * never trusted on its own: `loadAggregate` reads the events recorded after
 * its revision on every load, so a stream written by another process (or
 * another request) is folded up to date before it is used (decision 0037).
 * Only for folds that never mutate a state they are given, and for callers
 * that never mutate a state they get: entries are shared between requests.
 */
export class AggregateCache<S> {
  private readonly entries = new Map<string, { state: S; revision: number }>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  lookup(streamId: string): { state: S; revision: number } | undefined {
    const entry = this.entries.get(streamId);
    if (entry) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.entries.delete(streamId);
      this.entries.set(streamId, entry);
    }
    return entry;
  }

  remember(streamId: string, state: S, revision: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/**
 * Folds one stream into its current state, and returns the revision to
 * append at so that a concurrent writer makes the append fail instead of
 * both decisions being kept. With a cache, only the events after the cached
 * revision are read and folded onto the cached state: streams are
 * append-only, so that is the state the whole stream folds to.
 */
export async function loadAggregate<S, E extends { type: string; data: unknown }>(
  store: EventStore,
  streamId: string,
  evolve: (state: S | null, event: E) => S | null,
  cache?: AggregateCache<S>,
): Promise<{ state: S | null; expectedRevision: ExpectedRevision }> {
  const cached = cache?.lookup(streamId);
  const recorded = await store.readStream(streamId, cached && { fromRevision: cached.revision + 1 });
  let state = cached ? cached.state : null;
  for (const event of recorded) state = evolve(state, event as unknown as E);
  if (recorded.length === 0) return cached ? { state, expectedRevision: cached.revision } : { state: null, expectedRevision: 'no_stream' };
  const revision = recorded[recorded.length - 1].revision;
  if (cache && state !== null) cache.remember(streamId, state, revision);
  return { state, expectedRevision: revision };
}

const SCAN_PAGE = 500;

/**
 * Every aggregate whose events are of `eventTypes`, folded from the whole
 * store in store order: for operator listings and scheduled runs over every
 * tenant (tenants, API keys), which
 * have no index of their own. An event of those types recorded outside the
 * stream `streamOf` names for it is not the aggregate's and is passed over.
 */
export async function loadAllAggregates<S, E extends { type: string; data: unknown }>(
  store: EventStore,
  eventTypes: ReadonlyArray<E['type']>,
  streamOf: (event: E) => string,
  evolve: (state: S | null, event: E) => S | null,
): Promise<S[]> {
  const states = new Map<string, S | null>();
  for await (const page of readAllPages(store, { pageSize: SCAN_PAGE, eventTypes })) {
    for (const recorded of page) {
      const event = recorded as unknown as E;
      if (recorded.streamId !== streamOf(event)) continue;
      states.set(recorded.streamId, evolve(states.get(recorded.streamId) ?? null, event));
    }
  }
  return [...states.values()].filter((state): state is S => state !== null);
}
