import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RecordedEvent } from '../event-store.port';
import { verifyStream } from '../integrity';
import { STREAM_IDS_QUERY, SqliteEventStore } from './sqlite-event-store';
import { describeEventStoreContract, newEvent } from '../testing';
import { describeGroupCommit } from '../testing/group-commit.contract';
import { describeLedgerLogContract, rootOf } from '../testing/ledger-log.contract';
import { runTestScript } from '../testing/child-processes';
import { EVENT_STORE_SCHEMA } from './schema';
import { writeLedgerAtVersion } from '../testing/ledger-before-the-tree';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-event-store-'));
  dirs.push(dir);
  return join(dir, 'ledger.sqlite');
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeEventStoreContract('SQLite', async () => {
  const store = new SqliteEventStore(tempFile());
  return { store, dispose: () => store.close() };
});

describeGroupCommit('SQLite', async () => {
  const file = tempFile();
  return { open: () => new SqliteEventStore(file), target: file, dispose: async () => undefined };
});

describeLedgerLogContract('SQLite', {
  open: async () => {
    const store = new SqliteEventStore(tempFile());
    return { store, dispose: () => store.close() };
  },
  oldLedger: async (streams) => {
    const file = tempFile();
    const events = writeLedgerAtVersion(file, 2, streams);
    return {
      events,
      open: async ({ batch, onBuild }) => new SqliteEventStore(file, { logBuildBatch: batch, onLogBuild: onBuild }),
      insertWithoutLeaf: async (streamId, revision) => {
        const db = new Database(file);
        try {
          const { id, type, data, metadata } = newEvent();
          db.prepare(
            'INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, 0, ?, NULL)',
          ).run(id, streamId, revision, type, JSON.stringify(data), JSON.stringify(metadata), 'f'.repeat(64));
        } finally {
          db.close();
        }
      },
      dispose: async () => undefined,
    };
  },
});

describe('SqliteEventStore', () => {
  let file: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    file = tempFile();
    store = new SqliteEventStore(file);
  });
  afterEach(async () => {
    await store.close();
  });

  it('drops the streams table of a file made by the first schema version', async () => {
    const first = tempFile();
    writeLedgerAtVersion(first, 1, [{ streamId: 'before-upgrade', events: 1 }]);
    const upgraded = new SqliteEventStore(first);
    const reader = new Database(first, { readonly: true });
    try {
      expect(reader.prepare('SELECT version FROM schema_version').pluck().get()).toBe(EVENT_STORE_SCHEMA.length);
      expect(reader.prepare(`SELECT name FROM sqlite_master WHERE name = 'streams'`).all()).toEqual([]);
      await expect(upgraded.append('before-upgrade', [newEvent()], 0)).resolves.toMatchObject({ nextRevision: 1 });
      expect(verifyStream(await upgraded.readStream('before-upgrade'))).toBeNull();
    } finally {
      reader.close();
      await upgraded.close();
    }
  });

  it('takes every leaf of a file whose appends hashed their own (schema version 3) as integrated', async () => {
    const file = tempFile();
    const before = new SqliteEventStore(file);
    await before.append('hashed-on-append', [newEvent(), newEvent(), newEvent()], 'no_stream');
    await before.log.integrate();
    const [root] = await rootOf(before.log, 3);
    await before.close();
    const db = new Database(file);
    db.exec('DROP TABLE log_tree; DROP TABLE finished_marks; UPDATE schema_version SET version = 3');
    db.close();
    const upgraded = new SqliteEventStore(file);
    try {
      expect(await upgraded.log.size()).toBe(3);
      expect((await rootOf(upgraded.log, 3))[0].equals(root)).toBe(true);
    } finally {
      await upgraded.close();
    }
  });

  it('appends without the tree when asked (the benchmark baseline), and the next store with it enters those events', async () => {
    const file = tempFile();
    const without = new SqliteEventStore(file, { merkleTree: false });
    await without.append('no-tree', [newEvent(), newEvent(), newEvent()], 'no_stream');
    expect(await without.log.size()).toBe(0);
    await without.close();
    const withTree = new SqliteEventStore(file);
    try {
      expect((await withTree.log.leaves(0, 10)).map((l) => l.eventId)).toEqual((await withTree.readStream('no-tree')).map((e) => e.id));
    } finally {
      await withTree.close();
    }
  });

  it('keeps stream heads in the events table only', () => {
    const reader = new Database(file, { readonly: true });
    try {
      const tables = reader.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all();
      expect(tables).not.toContain('streams');
    } finally {
      reader.close();
    }
  });

  it('rejects every caller of a group whose transaction cannot start', async () => {
    const blocked = new SqliteEventStore(file, { busyTimeoutMs: 0 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const outcomes = await Promise.allSettled([
        blocked.append('blocked-1', [newEvent()], 'no_stream'),
        blocked.append('blocked-2', [newEvent()], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/locked|busy/i);
    } finally {
      other.exec('ROLLBACK');
      other.close();
      await blocked.close();
    }
    expect(await store.readStream('blocked-1')).toEqual([]);
  });

  it('shows a live subscription the events another process appends to the same file', async () => {
    const controller = new AbortController();
    const seen = new Promise<RecordedEvent>((resolveSeen, rejectSeen) => {
      const timer = setTimeout(() => rejectSeen(new Error('the event of the other process never arrived')), 15_000);
      void (async () => {
        for await (const [event] of store.subscribeToAll({ signal: controller.signal })) {
          clearTimeout(timer);
          resolveSeen(event);
          controller.abort();
        }
      })();
    });
    const appended = await appendInChildProcess(file, 'from-child');
    const appendedAt = Date.now();
    const event = await seen;
    expect(Date.now() - appendedAt).toBeLessThan(1_500);
    expect(event).toMatchObject({ streamId: 'from-child', type: 'child.appended', position: appended.position });
  });

  it("wakes a subscription of another connection to the same file in this process (another thread's) at the commit, not at its next poll", async () => {
    const follower = new SqliteEventStore(file, { pollIntervalMs: 600_000 });
    const controller = new AbortController();
    try {
      // The follower's first read finds nothing; from then on only a commit's announcement can wake it within the test.
      const subscription = follower.subscribeToAll({ signal: controller.signal })[Symbol.asyncIterator]();
      const next = subscription.next();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { position } = await store.append('announced', [newEvent()], 'no_stream');
      let timer: NodeJS.Timeout | undefined;
      const woken = await Promise.race([next, new Promise<'asleep'>((resolve) => (timer = setTimeout(() => resolve('asleep'), 5_000)))]);
      clearTimeout(timer);
      expect(woken).not.toBe('asleep');
      expect((woken as IteratorResult<readonly RecordedEvent[]>).value).toEqual([expect.objectContaining({ streamId: 'announced', position })]);
    } finally {
      controller.abort();
      await follower.close();
    }
  });

  it('stores hashes an auditor can recompute from the columns alone', async () => {
    await store.append('audited', [newEvent(), newEvent('contract.tested', { b: 1, a: 'ñ\n' })], 'no_stream');
    const reader = new Database(file, { readonly: true });
    const rows = reader
      .prepare(
        `SELECT stream_id, revision, event_id, type, data, metadata, hash, previous_hash
         FROM events WHERE stream_id = 'audited' ORDER BY revision`,
      )
      .all() as Array<Record<string, string | number | null>>;
    reader.close();
    expect(rows[1].data).toBe('{"b":1,"a":"ñ\\n"}');
    let previous = '';
    for (const row of rows) {
      const envelope = [
        previous,
        JSON.stringify(row.stream_id),
        String(row.revision),
        JSON.stringify(row.event_id),
        JSON.stringify(row.type),
        row.data,
        row.metadata,
      ].join('\n');
      expect(row.previous_hash ?? '').toBe(previous);
      expect(row.hash).toBe(createHash('sha256').update(envelope, 'utf8').digest('hex'));
      previous = row.hash as string;
    }
  });

  it('detects an event whose data was edited in the file', async () => {
    await store.append('tampered', [newEvent(), newEvent(), newEvent()], 'no_stream');
    const editor = new Database(file);
    editor.prepare(`UPDATE events SET data = '{"value":"edited"}' WHERE stream_id = 'tampered' AND revision = 1`).run();
    editor.close();
    expect(verifyStream(await store.readStream('tampered'))).toMatchObject({
      stream: 'tampered',
      revision: 1,
      reason: 'hash',
    });
  });

  it('detects metadata rewritten in the file, even with the same members in another order', async () => {
    await store.append('reordered', [newEvent(), newEvent()], 'no_stream');
    const editor = new Database(file);
    const select = editor.prepare(`SELECT metadata FROM events WHERE stream_id = 'reordered' AND revision = 0`);
    const metadata = JSON.parse(select.pluck().get() as string) as Record<string, unknown>;
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(metadata).reverse()));
    editor.prepare(`UPDATE events SET metadata = ? WHERE stream_id = 'reordered' AND revision = 0`).run(reordered);
    editor.close();
    expect(verifyStream(await store.readStream('reordered'))).toMatchObject({ revision: 0, reason: 'hash' });
  });

  it('detects an event removed from the middle of a stream', async () => {
    await store.append('gap', [newEvent(), newEvent(), newEvent()], 'no_stream');
    const editor = new Database(file);
    editor.prepare(`DELETE FROM events WHERE stream_id = 'gap' AND revision = 1`).run();
    editor.close();
    expect(verifyStream(await store.readStream('gap'))).toMatchObject({ stream: 'gap', revision: 2 });
  });
});

async function appendInChildProcess(file: string, streamId: string): Promise<{ position: number }> {
  return JSON.parse(await runTestScript('append-in-child-process', [file, streamId], 20_000)) as { position: number };
}

describe('SQLite: streams listed by prefix', () => {
  it('are read from the index of stream ids alone, never from the rows of events', async () => {
    const file = tempFile();
    const store = new SqliteEventStore(file);
    try {
      for (let i = 0; i < 20; i++) await store.append(`kind-${i}`, [newEvent()], 'no_stream');
      const reader = new Database(file, { readonly: true });
      try {
        const plan = reader.prepare(`EXPLAIN QUERY PLAN ${STREAM_IDS_QUERY}`).all('kind-', 'kind.') as Array<{ detail: string }>;
        // One step: a search of the covering (stream_id, revision) index over the prefix's range, no scan, no sort.
        expect(plan.map((step) => step.detail)).toEqual([expect.stringMatching(/^SEARCH events USING COVERING INDEX \S+ \(stream_id>\? AND stream_id<\?\)$/)]);
      } finally {
        reader.close();
      }
      expect(await store.streamIds('kind-1')).toEqual(['kind-1', ...Array.from({ length: 10 }, (_, i) => `kind-1${i}`)]);
    } finally {
      await store.close();
    }
  });
});

