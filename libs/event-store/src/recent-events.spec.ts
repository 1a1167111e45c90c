import type { RecordedEvent } from './event-store.port';
import { RecentEvents } from './recent-events';

/** A store of events at the given positions, read `pageSize` at a time, counting its reads. */
function storeAt(positions: number[], pageSize: number) {
  const log = positions.map((position) => ({ position, id: `e${position}` }) as RecordedEvent);
  const store = {
    log,
    reads: 0,
    read: (after: number) => {
      store.reads += 1;
      return log.filter((event) => event.position > after).slice(0, pageSize);
    },
  };
  return store;
}

const positionsOf = (events: RecordedEvent[]) => events.map((event) => event.position);
const HOUR_MS = 3_600_000;

describe('RecentEvents', () => {
  it('serves every subscription after the first from the one read of a page', () => {
    const store = storeAt([1, 2, 3, 5, 8, 9], 4);
    const recent = new RecentEvents(4, HOUR_MS);
    const first = recent.pageAfter(0, store.read);
    expect(first).toEqual({ events: store.log.slice(0, 4), fromStore: true });
    const second = recent.pageAfter(0, store.read);
    expect(second.fromStore).toBe(false);
    expect(second.events).toEqual(first.events);
    // Mid-page and between positions (a gap left by a rolled-back transaction), still from the page.
    expect(positionsOf(recent.pageAfter(2, store.read).events)).toEqual([3, 5]);
    expect(positionsOf(recent.pageAfter(4, store.read).events)).toEqual([5]);
    expect(store.reads).toBe(1);
    expect(recent.reads).toBe(1);
  });

  it('reads past the last event held, and then knows the end until the store changes', () => {
    const store = storeAt([1, 2, 3], 4);
    const recent = new RecentEvents(4, HOUR_MS);
    recent.pageAfter(0, store.read);
    // A short page ended where the store ended: a subscription at its end waits instead of reading.
    expect(recent.pageAfter(3, store.read)).toEqual({ events: [], fromStore: true });
    expect(store.reads).toBe(1);
    store.log.push({ position: 4 } as RecordedEvent);
    recent.changed();
    expect(positionsOf(recent.pageAfter(3, store.read).events)).toEqual([4]);
    expect(store.reads).toBe(2);
    // The new page extended what is held: the whole run is still served without a read.
    expect(positionsOf(recent.pageAfter(0, store.read).events)).toEqual([1, 2, 3, 4]);
    expect(store.reads).toBe(2);
  });

  it('believes the end for no longer than the poll interval: another process commits unannounced', () => {
    const store = storeAt([1, 2], 4);
    const recent = new RecentEvents(4, 0);
    recent.pageAfter(0, store.read);
    store.log.push({ position: 3 } as RecordedEvent);
    expect(positionsOf(recent.pageAfter(2, store.read).events)).toEqual([3]);
    expect(store.reads).toBe(2);
  });

  it('does not take a full page for the end of the store', () => {
    const store = storeAt([1, 2, 3, 4, 5], 4);
    const recent = new RecentEvents(4, HOUR_MS);
    recent.pageAfter(0, store.read);
    expect(positionsOf(recent.pageAfter(4, store.read).events)).toEqual([5]);
  });

  it('keeps runs of pages for subscriptions that read apart, and lets the least recently used go', () => {
    const store = storeAt([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 2);
    const recent = new RecentEvents(2, HOUR_MS, 4, 2);
    recent.pageAfter(0, store.read);
    recent.pageAfter(2, store.read);
    recent.pageAfter(4, store.read);
    // Six events read into one run of at most four: the first two were let go.
    expect(store.reads).toBe(3);
    expect(recent.pageAfter(2, store.read).fromStore).toBe(false);
    // A subscription behind the run reads for itself, into a run of its own, which serves the next one there.
    expect(recent.pageAfter(0, store.read)).toEqual({ events: store.log.slice(0, 2), fromStore: true });
    expect(recent.pageAfter(0, store.read).fromStore).toBe(false);
    expect(recent.pageAfter(4, store.read).fromStore).toBe(false);
    expect(store.reads).toBe(4);
    // A third run: the one used longest ago (after 0) goes, the other stays.
    expect(positionsOf(recent.pageAfter(8, store.read).events)).toEqual([9, 10]);
    expect(recent.pageAfter(4, store.read).fromStore).toBe(false);
    expect(recent.pageAfter(8, store.read).fromStore).toBe(false);
    expect(recent.pageAfter(0, store.read).fromStore).toBe(true);
  });

  it('gives subscriptions that ask for the same page at once one read', async () => {
    const store = storeAt([1, 2, 3], 4);
    const recent = new RecentEvents(4, HOUR_MS);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = async (after: number) => {
      await gate;
      return store.read(after);
    };
    const pages = [recent.pageAfter(0, read), recent.pageAfter(0, read), recent.pageAfter(0, read)];
    release();
    for (const page of await Promise.all(pages)) expect(positionsOf(page.events)).toEqual([1, 2, 3]);
    expect(store.reads).toBe(1);
  });

  it('does not take the end a read found for the end when the store changed while it read', async () => {
    const store = storeAt([1, 2], 4);
    const recent = new RecentEvents(4, HOUR_MS);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = recent.pageAfter(0, async (after) => {
      const page = store.read(after);
      await gate;
      return page;
    });
    // A commit announced while the read was in flight: the read may not have seen it.
    store.log.push({ position: 3 } as RecordedEvent);
    recent.changed();
    release();
    await pending;
    const next = await recent.pageAfter(2, async (after) => store.read(after));
    expect(positionsOf(next.events)).toEqual([3]);
  });
});
