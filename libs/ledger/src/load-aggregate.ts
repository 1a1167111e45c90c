import { EventStore, ExpectedRevision } from '@ledger/event-store';

/**
 * Folds one stream into its current state, and returns the revision to
 * append at so that a concurrent writer makes the append fail instead of
 * both decisions being kept.
 */
export async function loadAggregate<S, E extends { type: string; data: unknown }>(
  store: EventStore,
  streamId: string,
  evolve: (state: S | null, event: E) => S | null,
): Promise<{ state: S | null; expectedRevision: ExpectedRevision }> {
  const recorded = await store.readStream(streamId);
  const state = recorded.reduce<S | null>((s, e) => evolve(s, e as unknown as E), null);
  return { state, expectedRevision: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision };
}

const SCAN_PAGE = 500;

/**
 * Every aggregate whose events are of `eventTypes`, folded from the whole
 * store in store order: for operator listings (tenants, API keys), which
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
  for (let after = 0; ; ) {
    const page = await store.readAll({ after, maxCount: SCAN_PAGE });
    for (const recorded of page) {
      if (!eventTypes.includes(recorded.type)) continue;
      const event = recorded as unknown as E;
      if (recorded.streamId !== streamOf(event)) continue;
      states.set(recorded.streamId, evolve(states.get(recorded.streamId) ?? null, event));
    }
    if (page.length < SCAN_PAGE) break;
    after = page[page.length - 1].position;
  }
  return [...states.values()].filter((state): state is S => state !== null);
}
