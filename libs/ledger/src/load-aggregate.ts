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
