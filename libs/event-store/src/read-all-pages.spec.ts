import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore } from './event-store.port';
import { readAllPages } from './read-all-pages';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

const event = () => ({ id: randomUUID(), type: 'Noted', data: {}, metadata: { correlationId: randomUUID(), recordedAt: 1_000, schemaVersion: 1 } });

// Integration: the real SQLite store, whose pages are what the scans read.
describe('readAllPages', () => {
  let dir: string;
  let store: SqliteEventStore;
  const positions: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'read-all-pages-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    for (let i = 0; i < 10; i += 1) positions.push((await store.append(`s-${i % 3}`, [event()], 'any')).position);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pagesOf = async (options: { pageSize: number; after?: number; upTo?: number }) => {
    let reads = 0;
    const counted: EventStore = Object.create(store);
    counted.readAll = (readOptions) => ((reads += 1), store.readAll(readOptions));
    const pages: number[][] = [];
    for await (const page of readAllPages(counted, options)) pages.push(page.map((e) => e.position));
    return { pages, reads };
  };

  it('starts after `after`: what a follower has read is not read again', async () => {
    expect(await pagesOf({ pageSize: 5, after: positions[5] })).toEqual({ pages: [positions.slice(6)], reads: 1 });
    expect(await pagesOf({ pageSize: 4, after: positions[9] })).toEqual({ pages: [], reads: 1 });
  });

  it('yields every event once, in store order, in pages of the size asked', async () => {
    expect(await pagesOf({ pageSize: 4 })).toEqual({ pages: [positions.slice(0, 4), positions.slice(4, 8), positions.slice(8)], reads: 3 });
    // A last page that is full is followed by one read that finds nothing, and no empty page.
    expect(await pagesOf({ pageSize: 5 })).toEqual({ pages: [positions.slice(0, 5), positions.slice(5)], reads: 3 });
  });

  it('stops at upTo, whether it falls inside a page or at its end', async () => {
    expect(await pagesOf({ pageSize: 4, upTo: positions[5] })).toEqual({ pages: [positions.slice(0, 4), positions.slice(4, 6)], reads: 2 });
    // Nothing is read past upTo.
    expect(await pagesOf({ pageSize: 4, upTo: positions[3] })).toEqual({ pages: [positions.slice(0, 4)], reads: 1 });
    expect(await pagesOf({ pageSize: 4, upTo: 0 })).toEqual({ pages: [], reads: 0 });
  });
});
