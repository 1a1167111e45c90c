import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuplicateEventIdError, RecordedEvent, WrongExpectedVersionError } from '../event-store.port';
import { verifyStream } from '../integrity';
import { describeEventStoreContract, newEvent } from '../testing';
import { runTestScript } from '../testing/child-processes';
import { SqliteEventStore } from './sqlite-event-store';

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

  it('commits appends made in the same turn in one transaction', async () => {
    const before = store.stats();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.append(`group-${i}`, [newEvent()], 'no_stream')),
    );
    const after = store.stats();
    expect(after.appends - before.appends).toBe(50);
    expect(after.transactions - before.transactions).toBe(1);
    expect(new Set(results.map((r) => r.position)).size).toBe(50);
  });

  it('rolls back a refused append alone and commits the rest of its group', async () => {
    await store.append('taken', [newEvent()], 'no_stream');
    const reused = newEvent();
    await store.append('holder', [reused], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.append('ok-1', [newEvent()], 'no_stream'),
      store.append('taken', [newEvent()], 'no_stream'),
      store.append('partial', [newEvent(), reused], 'no_stream'),
      store.append('ok-2', [newEvent()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
    // The first event of the refused batch was inserted, then rolled back with its savepoint.
    expect(await store.readStream('partial')).toEqual([]);
    expect(await store.readStream('ok-2')).toHaveLength(1);
    expect(store.stats()).toMatchObject({ transactions: 3, slowPathGroups: 1 });
  });

  it('refuses a mismatching append on the fast path without redoing its group', async () => {
    await store.append('taken', [newEvent()], 'no_stream');
    const before = store.stats();
    const outcomes = await Promise.allSettled([
      store.append('fast-1', [newEvent()], 'no_stream'),
      store.append('taken', [newEvent()], 'no_stream'),
      store.append('taken', [newEvent()], 5),
      store.append('fast-2', [newEvent()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    expect(store.stats().transactions - before.transactions).toBe(1);
    expect(store.stats().slowPathGroups).toBe(before.slowPathGroups);
    expect(await store.readStream('taken')).toHaveLength(1);
  });

  it('lets appends to one stream in one group see each other', async () => {
    const retried = [newEvent()];
    const outcomes = await Promise.allSettled([
      store.append('same', [newEvent(), newEvent()], 'no_stream'),
      store.append('same', [newEvent()], 1),
      store.append('same', retried, 'stream_exists'),
      store.append('same', retried, 2),
      store.append('same', [newEvent()], 'no_stream'),
      store.append('same', [newEvent()], 2),
      store.append('same', [newEvent()], 'any'),
    ]);
    expect(store.stats().transactions).toBe(1);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.nextRevision : undefined));
    expect(values).toEqual([1, 2, 3, 3, undefined, undefined, 4]);
    expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({ actual: 3 });
    const events = await store.readStream('same');
    expect(events.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
    expect(verifyStream(events)).toBeNull();
  });

  it('sees appends another connection committed between its groups', async () => {
    await store.append('shared', [newEvent()], 'no_stream');
    const other = new SqliteEventStore(file);
    try {
      await other.append('shared', [newEvent()], 0);
      await other.append('other-only', [newEvent()], 'no_stream');
    } finally {
      await other.close();
    }
    await expect(store.append('shared', [newEvent()], 0)).rejects.toMatchObject({ actual: 1 });
    await expect(store.append('shared', [newEvent()], 1)).resolves.toMatchObject({ nextRevision: 2 });
    await expect(store.append('other-only', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    expect(verifyStream(await store.readStream('shared'))).toBeNull();
  });

  it('goes on from where a group redone on the slow path left its streams', async () => {
    const reused = newEvent();
    await store.append('holder-2', [reused], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.append('undone', [newEvent()], 'no_stream'),
      store.append('undone', [newEvent(), reused], 0),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    // The fast pass wrote 'undone' at revisions 0 and 1 before it was rolled back; only 0 was committed.
    await expect(store.append('undone', [newEvent()], 0)).resolves.toMatchObject({ nextRevision: 1 });
  });

  it('drops the streams table of a file made by the first schema version', async () => {
    await store.append('before-upgrade', [newEvent()], 'no_stream');
    await store.close();
    const old = new Database(file);
    old.exec(`CREATE TABLE streams (
                stream_id TEXT PRIMARY KEY, last_revision INTEGER NOT NULL, last_hash TEXT NOT NULL
              ) WITHOUT ROWID;
              UPDATE schema_version SET version = 1;`);
    old.close();
    store = new SqliteEventStore(file);
    const reader = new Database(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT version FROM schema_version').pluck().get()).toBe(2);
      expect(reader.prepare(`SELECT name FROM sqlite_master WHERE name = 'streams'`).all()).toEqual([]);
    } finally {
      reader.close();
    }
    await expect(store.append('before-upgrade', [newEvent()], 0)).resolves.toMatchObject({ nextRevision: 1 });
    expect(verifyStream(await store.readStream('before-upgrade'))).toBeNull();
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

  it('commits pending appends on close and refuses appends afterwards', async () => {
    const pending = store.append('closing', [newEvent()], 'no_stream');
    await store.close();
    await expect(pending).resolves.toMatchObject({ nextRevision: 0 });
    await expect(store.append('closing', [newEvent()], 0)).rejects.toThrow(/closed/);
    store = new SqliteEventStore(file);
    expect(await store.readStream('closing')).toHaveLength(1);
  });

  it('keeps committed events, positions and chain across a reopen', async () => {
    await store.append('durable', [newEvent(), newEvent()], 'no_stream');
    const head = await store.headPosition();
    await store.close();
    store = new SqliteEventStore(file);
    expect(await store.headPosition()).toBe(head);
    const next = await store.append('durable', [newEvent()], 1);
    expect(next).toEqual({ nextRevision: 2, position: head + 1 });
    expect(verifyStream(await store.readStream('durable'))).toBeNull();
  });

  it('ends every subscription on close', async () => {
    const ended = (async () => {
      for await (const event of store.subscribeToAll()) void event;
    })();
    await new Promise((r) => setTimeout(r, 20));
    await store.close();
    await expect(ended).resolves.toBeUndefined();
  });

  it('shows a live subscription the events another process appends to the same file', async () => {
    const controller = new AbortController();
    const seen = new Promise<RecordedEvent>((resolveSeen, rejectSeen) => {
      const timer = setTimeout(() => rejectSeen(new Error('the event of the other process never arrived')), 15_000);
      void (async () => {
        for await (const event of store.subscribeToAll({ signal: controller.signal })) {
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
