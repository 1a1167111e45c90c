import { EventStore, ExpectedRevision } from '@ledger/event-store';

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

/**
 * Every aggregate of one kind, each folded from its own stream, in the order
 * their streams began: for operator listings and scheduled runs over every
 * tenant (tenants, API keys), which have no read model. The kind is the
 * prefix its stream names share; the store lists them from its index of
 * streams, so the cost grows with the aggregates listed, not with the
 * ledger (decision 0092).
 */
export async function loadAllAggregates<S, E extends { type: string; data: unknown }>(
  store: EventStore,
  streamPrefix: string,
  evolve: (state: S | null, event: E) => S | null,
): Promise<S[]> {
  const found: Array<{ began: number; state: S }> = [];
  for (const streamId of await store.streamIds(streamPrefix)) {
    const recorded = await store.readStream(streamId);
    const state = recorded.reduce<S | null>((folded, event) => evolve(folded, event as unknown as E), null);
    if (state !== null) found.push({ began: recorded[0].position, state });
  }
  return found.sort((a, b) => a.began - b.began).map(({ state }) => state);
}
