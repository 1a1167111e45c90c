import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewEvent } from './event-store.port';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import type { StoredEventRow } from './testing';
import { verifyLedger, VerifyLedgerProgress } from './verify-ledger';

const TENANT_A = '0a0a0a0a-0000-4000-8000-00000000000a';
const TENANT_B = '0b0b0b0b-0000-4000-8000-00000000000b';

/** The envelope of integrity.ts computed from a row's columns, independently of the code under test. */
function rowHash(row: StoredEventRow, previousHash: string | null): string {
  const envelope = [previousHash ?? '', JSON.stringify(row.stream_id), String(row.revision), JSON.stringify(row.event_id), JSON.stringify(row.type), row.data, row.metadata].join('\n');
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

function fact(tenantId: string | undefined, n: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'ledger.tested',
    data: { n, grantedAt: 1_763_800_000_000 + n, note: 'ñandú "quoted"' },
    metadata: { ...(tenantId ? { tenantId } : {}), correlationId: randomUUID(), recordedAt: 1_763_800_000_000 + n, schemaVersion: 1 },
  };
}

describe('verifyLedger', () => {
  const dirs: string[] = [];
  let file: string;
  let store: SqliteEventStore;

  /**
   * Tenant A: streams a-1 (4 events) and a-2 (3 events); tenant B: b-1 (3
   * events). Appended one event at a time, round robin, so the streams'
   * positions interleave: a-1 r0 is position 1, a-2 r0 is 2, b-1 r0 is 3, ...
   */
  const LAYOUT: Array<[string, string, number]> = [
    ['a-1', TENANT_A, 4],
    ['a-2', TENANT_A, 3],
    ['b-1', TENANT_B, 3],
  ];

  beforeEach(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-verify-'));
    dirs.push(dir);
    file = join(dir, 'ledger.sqlite');
    store = new SqliteEventStore(file);
    for (let revision = 0; revision < 4; revision += 1) {
      for (const [stream, tenantId, count] of LAYOUT) {
        if (revision < count) await store.append(stream, [fact(tenantId, revision)], revision === 0 ? 'no_stream' : revision - 1);
      }
    }
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `edit` on the file through a second connection, as someone with access to the file would. */
  function tamper<T>(edit: (db: Database.Database) => T): T {
    const db = new Database(file);
    try {
      return db.transaction(() => edit(db))();
    } finally {
      db.close();
    }
  }
  const row = (db: Database.Database, stream: string, revision: number) =>
    db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision = ?').get(stream, revision) as StoredEventRow;

  describe('an intact ledger', () => {
    it('reports every stream and event and no break, whatever the page size', async () => {
      for (const pageSize of [1, 3, 10, 1_000]) {
        expect(await verifyLedger(store, { pageSize })).toEqual({ intact: true, streams: 3, events: 10, firstBreak: null });
      }
    });

    it('reports an empty store as intact', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ledger-verify-'));
      dirs.push(dir);
      const empty = new SqliteEventStore(join(dir, 'ledger.sqlite'));
      try {
        expect(await verifyLedger(empty)).toEqual({ intact: true, streams: 0, events: 0, firstBreak: null });
      } finally {
        await empty.close();
      }
    });

    it('covers the events committed when it starts, not those appended while it reads', async () => {
      let appended = false;
      const appending = {
        headPosition: () => store.headPosition(),
        readAll: async (options: Parameters<SqliteEventStore['readAll']>[0]) => {
          if (!appended) {
            appended = true;
            await store.append('a-1', [fact(TENANT_A, 4)], 3);
            await store.append('late', [fact(TENANT_A, 0)], 'no_stream');
          }
          return store.readAll(options);
        },
      };
      expect(await verifyLedger(appending, { pageSize: 4 })).toEqual({ intact: true, streams: 3, events: 10, firstBreak: null });
      expect(await verifyLedger(store)).toEqual({ intact: true, streams: 4, events: 12, firstBreak: null });
    });
  });

  describe('a tampered ledger', () => {
    it('reports an edited data value as a hash break at that event, with the stored and recomputed hashes', async () => {
      const { edited, stored } = tamper((db) => {
        const before = row(db, 'a-1', 2);
        const data = before.data.replace('"grantedAt":1763800000002', '"grantedAt":1763800000009');
        expect(data).not.toBe(before.data);
        db.prepare('UPDATE events SET data = ? WHERE position = ?').run(data, before.position);
        return { edited: { ...before, data }, stored: before.hash };
      });
      const result = await verifyLedger(store, { pageSize: 2 });
      expect(result).toEqual({
        intact: false,
        streams: 3,
        events: 10,
        firstBreak: { stream: 'a-1', revision: 2, reason: 'hash', expected: rowHash(edited, edited.previous_hash), found: stored },
      });
      expect(result.firstBreak?.expected).not.toBe(stored);
    });

    it('reports an edited metadata value as a hash break', async () => {
      tamper((db) => {
        const before = row(db, 'b-1', 1);
        db.prepare('UPDATE events SET metadata = ? WHERE position = ?').run(before.metadata.replace('"recordedAt":1763800000001', '"recordedAt":1763800000008'), before.position);
      });
      expect((await verifyLedger(store)).firstBreak).toMatchObject({ stream: 'b-1', revision: 1, reason: 'hash' });
    });

    it('reports the same members in another order as a hash break: the chain covers the stored text', async () => {
      tamper((db) => {
        const before = row(db, 'a-2', 0);
        const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(before.data) as object).reverse()));
        db.prepare('UPDATE events SET data = ? WHERE position = ?').run(reordered, before.position);
      });
      expect((await verifyLedger(store)).firstBreak).toMatchObject({ stream: 'a-2', revision: 0, reason: 'hash' });
    });

    it('reports an event removed from the middle of a stream at the next event, as a revision gap', async () => {
      tamper((db) => db.prepare("DELETE FROM events WHERE stream_id = 'a-1' AND revision = 1").run());
      expect(await verifyLedger(store)).toEqual({
        intact: false,
        streams: 3,
        events: 9,
        firstBreak: { stream: 'a-1', revision: 2, reason: 'revision', expected: '1', found: '2' },
      });
    });

    it('reports a removed middle event whose later revisions were renumbered as a broken link', async () => {
      const { kept } = tamper((db) => {
        const kept = row(db, 'a-1', 0);
        const removed = row(db, 'a-1', 1);
        db.prepare('DELETE FROM events WHERE position = ?').run(removed.position);
        for (const revision of [2, 3]) db.prepare("UPDATE events SET revision = ? WHERE stream_id = 'a-1' AND revision = ?").run(revision - 1, revision);
        return { kept, removed };
      });
      expect((await verifyLedger(store)).firstBreak).toMatchObject({ stream: 'a-1', revision: 1, reason: 'previous_hash', expected: kept.hash });
    });

    it('reports a stream whose first event was removed', async () => {
      tamper((db) => db.prepare("DELETE FROM events WHERE stream_id = 'a-2' AND revision = 0").run());
      expect((await verifyLedger(store)).firstBreak).toEqual({ stream: 'a-2', revision: 1, reason: 'revision', expected: '0', found: '1' });
    });

    it('reports two events whose positions were swapped', async () => {
      tamper((db) => {
        const [first, second] = [row(db, 'a-1', 1), row(db, 'a-1', 2)];
        const move = db.prepare('UPDATE events SET position = ? WHERE position = ?');
        move.run(-1, first.position);
        move.run(first.position, second.position);
        move.run(second.position, -1);
      });
      // Revision 2 now comes first, right after revision 0.
      expect((await verifyLedger(store)).firstBreak).toEqual({ stream: 'a-1', revision: 2, reason: 'revision', expected: '1', found: '2' });
    });

    it('reports two events whose contents were swapped, revisions left in place', async () => {
      const { first } = tamper((db) => {
        const [first, second] = [row(db, 'a-1', 1), row(db, 'a-1', 2)];
        const put = db.prepare('UPDATE events SET event_id = ?, type = ?, data = ?, metadata = ?, hash = ?, previous_hash = ? WHERE position = ?');
        // Ids are unique: both move aside first.
        for (const moving of [first, second]) db.prepare('UPDATE events SET event_id = ? WHERE position = ?').run(`moving-${moving.position}`, moving.position);
        put.run(second.event_id, second.type, second.data, second.metadata, second.hash, second.previous_hash, first.position);
        put.run(first.event_id, first.type, first.data, first.metadata, first.hash, first.previous_hash, second.position);
        return { first };
      });
      expect((await verifyLedger(store)).firstBreak).toEqual({
        stream: 'a-1',
        revision: 1,
        reason: 'previous_hash',
        expected: first.previous_hash,
        found: first.hash,
      });
    });

    it('reports the break with the lowest position when several streams are broken', async () => {
      // a-1 r3 is position 10; b-1 r1 is position 6: b-1 is reported although a-1 was read first.
      tamper((db) => {
        for (const [stream, revision] of [['a-1', 3], ['b-1', 1]] as const) {
          db.prepare('UPDATE events SET data = ? WHERE stream_id = ? AND revision = ?').run('{"n":-1}', stream, revision);
        }
      });
      const result = await verifyLedger(store, { pageSize: 1 });
      expect(result).toMatchObject({ intact: false, streams: 3, events: 10, firstBreak: { stream: 'b-1', revision: 1, reason: 'hash' } });
    });
  });

  describe('with a tenant', () => {
    beforeEach(() => {
      tamper((db) => db.prepare("UPDATE events SET data = '{}' WHERE stream_id = 'b-1' AND revision = 1").run());
    });

    it("checks only the tenant's streams, ignoring another tenant's broken stream", async () => {
      expect(await verifyLedger(store, { tenantId: TENANT_A, pageSize: 2 })).toEqual({ intact: true, streams: 2, events: 7, firstBreak: null });
      expect(await verifyLedger(store, { tenantId: TENANT_B })).toMatchObject({ intact: false, streams: 1, events: 3, firstBreak: { stream: 'b-1', revision: 1, reason: 'hash' } });
      expect(await verifyLedger(store)).toMatchObject({ intact: false, streams: 3, events: 10, firstBreak: { stream: 'b-1' } });
    });

    it('checks nothing for a tenant with no events', async () => {
      expect(await verifyLedger(store, { tenantId: randomUUID() })).toEqual({ intact: true, streams: 0, events: 0, firstBreak: null });
    });

    it("still reports a break in the tenant's own stream, and a removed first event", async () => {
      tamper((db) => db.prepare("DELETE FROM events WHERE stream_id = 'a-2' AND revision = 0").run());
      expect(await verifyLedger(store, { tenantId: TENANT_A })).toEqual({
        intact: false,
        streams: 2,
        events: 6,
        firstBreak: { stream: 'a-2', revision: 1, reason: 'revision', expected: '0', found: '1' },
      });
    });

    it("does not lose a later event whose tenantId was edited away: once a stream is the tenant's, all of it is checked", async () => {
      tamper((db) => {
        const before = row(db, 'a-1', 2);
        db.prepare('UPDATE events SET metadata = ? WHERE position = ?').run(before.metadata.replace(TENANT_A, TENANT_B), before.position);
      });
      expect(await verifyLedger(store, { tenantId: TENANT_A })).toMatchObject({ intact: false, streams: 2, events: 7, firstBreak: { stream: 'a-1', revision: 2, reason: 'hash' } });
    });

    it('checks a stream from its first event of the tenant, linked to the events before it', async () => {
      // An operator fact without a tenant opens the stream; the tenant's facts follow it.
      await store.append('mixed', [fact(undefined, 0)], 'no_stream');
      await store.append('mixed', [fact(TENANT_A, 1), fact(TENANT_A, 2)], 0);
      expect(await verifyLedger(store, { tenantId: TENANT_A })).toEqual({ intact: true, streams: 3, events: 9, firstBreak: null });
      tamper((db) => db.prepare("UPDATE events SET hash = ? WHERE stream_id = 'mixed' AND revision = 0").run('0'.repeat(64)));
      expect((await verifyLedger(store, { tenantId: TENANT_A })).firstBreak).toEqual({
        stream: 'mixed',
        revision: 1,
        reason: 'previous_hash',
        expected: '0'.repeat(64),
        found: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    });
  });

  describe('progress', () => {
    it('reports every N events read, with the position, the head and the rate', async () => {
      let now = 0;
      const clock = { now: () => (now += 1_000) - 1_000 };
      const reported: VerifyLedgerProgress[] = [];
      await verifyLedger(store, { pageSize: 3, progressEvery: 4, clock, progress: (p) => reported.push(p) });
      // The clock reads 0 at the start, then 1 s and 2 s at the two reports.
      expect(reported).toEqual([
        { events: 4, position: 4, head: 10, ratePerSecond: 4 },
        { events: 8, position: 8, head: 10, ratePerSecond: 4 },
      ]);
    });

    it("counts other tenants' events as read", async () => {
      const reported: VerifyLedgerProgress[] = [];
      await verifyLedger(store, { tenantId: TENANT_B, progressEvery: 5, progress: (p) => reported.push(p) });
      expect(reported.map((p) => p.events)).toEqual([5, 10]);
    });
  });

  it('refuses a page size or a progress interval that is not a positive integer', async () => {
    await expect(verifyLedger(store, { pageSize: 0 })).rejects.toThrow(RangeError);
    await expect(verifyLedger(store, { progressEvery: 1.5 })).rejects.toThrow(/progressEvery/);
  });
});
