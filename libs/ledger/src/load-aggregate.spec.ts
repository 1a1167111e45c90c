import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { countingReads } from '@ledger/event-store/testing';
import { AggregateCache, loadAggregate } from './load-aggregate';

interface Tally {
  items: string[];
}
type TallyEvent = { type: 'Added'; data: { item: string } } | { type: 'Cleared'; data: Record<string, never> };

// Never mutates what it is given: the cache's contract.
const evolve = (state: Tally | null, event: TallyEvent): Tally | null =>
  event.type === 'Added' ? { items: [...(state?.items ?? []), event.data.item] } : null;

const metadata = () => ({ correlationId: randomUUID(), recordedAt: 1_000, schemaVersion: 1 });
const added = (item: string) => ({ id: randomUUID(), type: 'Added', data: { item }, metadata: metadata() });

// Integration: the service's connection caches; a second connection to the same file stands in for another process.
describe('loadAggregate with an AggregateCache', () => {
  let dir: string;
  let service: SqliteEventStore;
  let other: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'aggregates-'));
    service = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    other = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await Promise.all([service.close(), other.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('folds only what was recorded after the cached revision, and returns what a full fold returns', async () => {
    const store = countingReads(service);
    const cache = new AggregateCache<Tally>(10);
    await other.append('tally-1', [added('a'), added('b')], 'no_stream');

    expect(await loadAggregate(store, 'tally-1', evolve, cache)).toEqual({ state: { items: ['a', 'b'] }, expectedRevision: 1 });
    expect(store.eventsRead).toBe(2);

    // Nothing new: the cached state, after a read that returns no event.
    expect(await loadAggregate(store, 'tally-1', evolve, cache)).toEqual({ state: { items: ['a', 'b'] }, expectedRevision: 1 });
    expect(store.eventsRead).toBe(2);

    // Written by another process: read and folded onto the cached state, the same as a fold from the start.
    await other.append('tally-1', [added('c')], 1);
    const loaded = await loadAggregate(store, 'tally-1', evolve, cache);
    expect(loaded).toEqual(await loadAggregate(other, 'tally-1', evolve));
    expect(loaded).toEqual({ state: { items: ['a', 'b', 'c'] }, expectedRevision: 2 });
    expect(store.eventsRead).toBe(3);
  });

  it('answers a stream that does not exist as such, every time, and caches no absence', async () => {
    const cache = new AggregateCache<Tally>(10);
    expect(await loadAggregate(service, 'tally-missing', evolve, cache)).toEqual({ state: null, expectedRevision: 'no_stream' });
    await other.append('tally-missing', [added('x')], 'no_stream');
    expect(await loadAggregate(service, 'tally-missing', evolve, cache)).toEqual({ state: { items: ['x'] }, expectedRevision: 0 });
  });

  it('keeps the revision of a stream that folds to nothing, so an append at it is not refused', async () => {
    const cache = new AggregateCache<Tally>(10);
    await other.append('tally-2', [added('a'), { id: randomUUID(), type: 'Cleared', data: {}, metadata: metadata() }], 'no_stream');
    expect(await loadAggregate(service, 'tally-2', evolve, cache)).toEqual({ state: null, expectedRevision: 1 });
    expect(cache.size).toBe(0);
  });

  it('holds at most its capacity, dropping the least recently used stream first', async () => {
    const store = countingReads(service);
    const cache = new AggregateCache<Tally>(2);
    for (const stream of ['t-1', 't-2', 't-3']) await other.append(stream, [added(stream)], 'no_stream');
    await loadAggregate(store, 't-1', evolve, cache);
    await loadAggregate(store, 't-2', evolve, cache);
    await loadAggregate(store, 't-1', evolve, cache); // t-1 is now the most recently used
    await loadAggregate(store, 't-3', evolve, cache); // drops t-2
    expect(cache.size).toBe(2);
    const before = store.eventsRead;
    await loadAggregate(store, 't-1', evolve, cache);
    expect(store.eventsRead).toBe(before);
    await loadAggregate(store, 't-2', evolve, cache);
    expect(store.eventsRead).toBe(before + 1);
  });
});
