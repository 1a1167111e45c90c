import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { hashEventText, verifyStream } from '../integrity';
import { createTestDatabase, describeEventStoreContract, newEvent, readEveryEvent, TestDatabase } from '../testing';
import { runTestScript, spawnTestScript } from '../testing/child-processes';
import { describeGroupCommit } from '../testing/group-commit.contract';
import { writePostgresLedgerBeforeTheTree } from '../testing/ledger-before-the-tree';
import { describeLedgerLogContract } from '../testing/ledger-log.contract';
import { STOP_EVENT_TYPE } from '../testing/subscribe-in-child-process';
import { PostgresEventStore } from './postgres-event-store';
import { EVENTS_CHANNEL, EVENT_STORE_MIGRATIONS } from './schema';

// Runs on every test run against the server in testing/postgres-database.ts
// (CI starts one on 127.0.0.1:5432), each suite in a database of its own.

describeEventStoreContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const store = new PostgresEventStore(database.url);
  return {
    store,
    dispose: async () => {
      await store.close();
      await database.drop();
    },
  };
});

describeGroupCommit('PostgreSQL', async () => {
  const database = await createTestDatabase();
  return { open: () => new PostgresEventStore(database.url), target: database.url, dispose: () => database.drop() };
});

describeLedgerLogContract('PostgreSQL', {
  open: async () => {
    const database = await createTestDatabase();
    const store = new PostgresEventStore(database.url);
    await store.opened();
    return {
      store,
      dispose: async () => {
        await store.close();
        await database.drop();
      },
    };
  },
  oldLedger: async (streams) => {
    const database = await createTestDatabase();
    const events = await writePostgresLedgerBeforeTheTree(database.url, streams);
    return {
      events,
      open: async ({ batch, onBuild }) => {
        const store = new PostgresEventStore(database.url, { logBuildBatch: batch, onLogBuild: onBuild });
        try {
          await store.opened();
        } catch (error) {
          await store.close();
          throw error;
        }
        return store;
      },
      insertWithoutLeaf: async (streamId, revision) => {
        const client = new Client({ connectionString: database.url });
        await client.connect();
        try {
          const { id, type, data, metadata } = newEvent();
          await client.query(
            `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, NULL)`,
            [id, streamId, revision, type, JSON.stringify(data), JSON.stringify(metadata), 'f'.repeat(64)],
          );
        } finally {
          await client.end();
        }
      },
      dispose: () => database.drop(),
    };
  },
});

describe('PostgresEventStore', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  const sql = async <T>(statement: string, values: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(statement, values)).rows as T[];
    } finally {
      await client.end();
    }
  };

  beforeEach(async () => {
    database = await createTestDatabase();
    store = new PostgresEventStore(database.url);
    await store.opened();
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  it('refuses a second event at a revision already taken, even from a writer that bypasses the store', async () => {
    await store.append('unique', [newEvent()], 'no_stream');
    const [row] = await sql<{ hash: string }>(`SELECT hash FROM events WHERE stream_id = 'unique'`);
    await expect(
      sql(
        `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
         VALUES ('manual', 'unique', 0, 't', '{}', '{}', 0, $1, NULL)`,
        [row.hash],
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'events_stream_revision_unique' });
  });

  it('stores data and metadata as the exact text hashed, so an auditor recomputes hashes from the columns', async () => {
    await store.append('audited', [newEvent(), newEvent('contract.tested', { b: 1, a: 'ñ\n', c: '\u0000' })], 'no_stream');
    const rows = await sql<Record<string, string | null>>(
      `SELECT stream_id, revision::text, event_id, type, data::text, metadata::text, hash, previous_hash
       FROM events WHERE stream_id = 'audited' ORDER BY revision`,
    );
    expect(rows[1].data).toBe('{"b":1,"a":"ñ\\n","c":"\\u0000"}');
    let previous = '';
    for (const row of rows) {
      const envelope = [
        previous,
        JSON.stringify(row.stream_id),
        row.revision,
        JSON.stringify(row.event_id),
        JSON.stringify(row.type),
        row.data,
        row.metadata,
      ].join('\n');
      expect(row.previous_hash ?? '').toBe(previous);
      expect(row.hash).toBe(createHash('sha256').update(envelope, 'utf8').digest('hex'));
      expect(row.hash).toBe(
        hashEventText(row.previous_hash, row.stream_id!, Number(row.revision), row.event_id!, row.type!, row.data!, row.metadata!),
      );
      previous = row.hash as string;
    }
  });

  it('detects an event whose data was edited in the table', async () => {
    await store.append('tampered', [newEvent(), newEvent(), newEvent()], 'no_stream');
    await sql(`UPDATE events SET data = '{"value":"edited"}' WHERE stream_id = 'tampered' AND revision = 1`);
    expect(verifyStream(await store.readStream('tampered'))).toMatchObject({ stream: 'tampered', revision: 1, reason: 'hash' });
  });

  it('migrates a fresh database once when several processes open it at the same moment', async () => {
    const fresh = await createTestDatabase();
    try {
      const stores = Array.from({ length: 4 }, () => new PostgresEventStore(fresh.url));
      await Promise.all(stores.map((s) => s.opened()));
      await Promise.all(stores.map((s, i) => s.append(`opened-${i}`, [newEvent()], 'no_stream')));
      await Promise.all(stores.map((s) => s.close()));
      const client = new Client({ connectionString: fresh.url });
      await client.connect();
      try {
        const versions = await client.query(`SELECT component, version FROM schema_versions`);
        expect(versions.rows).toEqual([{ component: 'event-store', version: EVENT_STORE_MIGRATIONS.steps.length }]);
        expect((await client.query('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(4);
      } finally {
        await client.end();
      }
      // Opening an up-to-date database applies nothing and keeps what is there.
      const reopened = new PostgresEventStore(fresh.url);
      await expect(reopened.append('opened-0', [newEvent()], 0)).resolves.toMatchObject({ nextRevision: 1 });
      await reopened.close();
    } finally {
      await fresh.drop();
    }
  });

  it('refuses to open a database migrated by a newer version', async () => {
    await sql(`UPDATE schema_versions SET version = 99 WHERE component = 'event-store'`);
    const newer = new PostgresEventStore(database.url);
    await expect(newer.opened()).rejects.toThrow(/schema version 99 is newer than this code/);
    await expect(newer.append('never', [newEvent()], 'no_stream')).rejects.toThrow(/newer than this code/);
    await newer.close();
  });

  it('holds a subscription at an event whose transaction is still open, then delivers both in position order', async () => {
    const head = await store.headPosition();
    // A writer that bypasses the store's lock takes a position and keeps its transaction open.
    const slow = new Client({ connectionString: database.url });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const [held] = (
        await slow.query(
          `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
           VALUES ('held', 'held', 0, 't', '{}', '{}', 0, 'h', NULL) RETURNING position`,
        )
      ).rows;
      const later = await store.append('later', [newEvent()], 'no_stream');
      expect(later.position).toBeGreaterThan(Number(held.position));
      expect((await store.readAll({ after: head })).map((e) => e.position)).toEqual([later.position]);

      const controller = new AbortController();
      const delivered: number[] = [];
      const consumed = (async () => {
        for await (const page of store.subscribeToAll({ after: head, signal: controller.signal })) {
          delivered.push(...page.map((event) => event.position));
          if (delivered.length >= 2) controller.abort();
        }
      })();
      await new Promise((r) => setTimeout(r, 600));
      expect(delivered).toEqual([]);
      await slow.query('COMMIT');
      await withTimeout(consumed, 5_000);
      expect(delivered).toEqual([Number(held.position), later.position]);
    } finally {
      await slow.end();
    }
  });

  it("wakes a live subscription with another process's append through LISTEN/NOTIFY, without waiting for a poll", async () => {
    await store.close();
    store = new PostgresEventStore(database.url, { pollIntervalMs: 60_000 });
    const controller = new AbortController();
    const seen = (async () => {
      for await (const [event] of store.subscribeToAll({ signal: controller.signal })) {
        controller.abort();
        return event;
      }
      return undefined;
    })();
    // Until the subscription has read the empty store and its LISTEN is in place: a notification sent before it is not for it.
    await untilListening(database.url);
    const appended = JSON.parse(await runTestScript('append-in-child-process', [database.url, 'from-child'])) as { position: number };
    const appendedAt = Date.now();
    const event = await withTimeout(seen, 10_000);
    expect(Date.now() - appendedAt).toBeLessThan(2_000);
    expect(event).toMatchObject({ streamId: 'from-child', type: 'child.appended', position: appended.position });
  });

  it('delivers every event exactly once and in position order to subscribers in other processes while several processes write, and enters them in the tree in that order without a gap', async () => {
    const WRITERS = 4;
    const SUBSCRIBERS = 2;
    const APPENDS = 300;
    const subscribers = Array.from({ length: SUBSCRIBERS }, () => spawnTestScript('subscribe-in-child-process', [database.url]));
    const outputs = subscribers.map((child) => collect(child));
    await Promise.all(subscribers.map((child) => firstLine(child)));
    const written = await Promise.all(
      Array.from({ length: WRITERS }, (_, w) => runTestScript('append-in-child-process', [database.url, `writer-${w}`, String(APPENDS)], 120_000)),
    );
    const total = written.map((out) => (JSON.parse(out) as { events: number }).events).reduce((a, b) => a + b, 0);
    await store.append('stop', [newEvent(STOP_EVENT_TYPE)], 'no_stream');

    const all = await readEveryEvent(store);
    const positions = all.filter((e) => e.type === 'child.appended').map((e) => e.position);
    expect(positions).toHaveLength(total);
    for (const output of await Promise.all(outputs)) {
      const delivered = JSON.parse(output.trim().split('\n').pop() as string) as number[];
      expect(delivered).toEqual(positions);
    }
    const leaves = await store.log.leaves(0, all.length + 1);
    expect(leaves.map((l) => l.leafIndex)).toEqual(all.map((_, i) => i));
    expect(leaves.map((l) => l.eventId)).toEqual(all.map((e) => e.id));
  });
});

function collect(child: ReturnType<typeof spawnTestScript>): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`subscriber exited with ${code}: ${stderr}`));
    });
  });
}

function firstLine(child: ReturnType<typeof spawnTestScript>): Promise<void> {
  return new Promise((resolve) => {
    const onData = (d: Buffer) => {
      if (String(d).includes('\n')) {
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    // A subscriber that dies first fails its `collect` instead.
    child.on('exit', () => resolve());
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until a session of the database has run `LISTEN` on the events channel, as the server sees it (a loaded machine may take seconds). */
async function untilListening(url: string, withinMs = 10_000): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const { rows } = await client.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query = $1", [`LISTEN ${EVENTS_CHANNEL}`]);
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error(`no LISTEN ${EVENTS_CHANNEL} within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await client.end();
  }
}
