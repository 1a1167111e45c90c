import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { SQLITE_FILE_NAME, hashEventText, ledgerLeaf } from '@ledger/event-store';
import { StoredEventRow, TEST_POSTGRES_URL, createTestDatabase, newTestDatabaseName } from '@ledger/event-store/testing';
import { logIdentity } from '@ledger/ledger-log';
import { databaseUrlFor, dropDatabase } from '@ledger/platform';
import { NoteError, noteVerifier, openNote } from '@ledger/transparency';
import { startApiApp } from './support/api-app';
import { textBody } from './support/text-body';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { runCli } from './support/processes';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// Decision 0058: someone who can write the database (the bank's own
// operator) rewrites history, and `ledger audit verify`, given a checkpoint
// saved before, reports it with the first leaf that differs: a consent's
// stream deleted, a stream's last fact (a revocation) dropped, the ledger's
// tail cut off, a stream rewritten and its chain recomputed (with and
// without its leaves), an event inserted in the middle, and one appended with
// a past recordedAt. On SQLite and on PostgreSQL, each on a copy of the same
// ledger.

const SLOW = 180_000;
const MINUTE = 60_000;
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:audit'] as const;

/** A copy of the ledger to tamper with, and the environment the CLI reads it with. */
interface LedgerCopy {
  env: Record<string, string>;
  /** Runs statements with `?` placeholders (numbered for PostgreSQL here), returns rows. */
  sql(statement: string, values?: unknown[]): Promise<any[]>;
  /** Moves every event (and its leaf) at `position` or later one place up, so an event fits in at `position`. */
  makeRoomAt(position: number): Promise<void>;
  dispose(): Promise<void>;
}

interface Store {
  name: string;
  environment(): Promise<{ environment: TestEnvironment; dispose(): Promise<void> }>;
  copy(environment: TestEnvironment): Promise<LedgerCopy>;
}

const sqlite: Store = {
  name: 'SQLite',
  environment: async () => {
    const environment = testEnvironment({ ...EMBEDDED_STORE, LEDGER_WORKERS: 'external' });
    return { environment, dispose: () => environment.dispose() };
  },
  copy: async (environment) => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-tampered-'));
    const from = join(environment.dataDir, SQLITE_FILE_NAME);
    for (const suffix of ['', '-wal']) if (existsSync(`${from}${suffix}`)) copyFileSync(`${from}${suffix}`, join(dir, `${SQLITE_FILE_NAME}${suffix}`));
    const file = join(dir, SQLITE_FILE_NAME);
    const sql = async (statement: string, values: unknown[] = []) => {
      const db = new Database(file);
      try {
        const prepared = db.prepare(statement);
        return prepared.reader ? prepared.all(...values) : (prepared.run(...values), []);
      } finally {
        db.close();
      }
    };
    return {
      env: { ...environment.env, LEDGER_DATA_DIR: dir },
      sql,
      makeRoomAt: async (position) => {
        // Two steps: a primary key moved in place would collide with its neighbour.
        for (const table of ['events', 'log_leaves']) {
          await sql(`UPDATE ${table} SET position = -(position + 1) WHERE position >= ?`, [position]);
          await sql(`UPDATE ${table} SET position = -position WHERE position < 0`);
        }
      },
      dispose: async () => undefined,
    };
  },
};

const postgres: Store = {
  name: 'PostgreSQL',
  environment: async () => {
    const database = await createTestDatabase();
    const environment = testEnvironment({ DATABASE_URL: database.url, LEDGER_WORKERS: 'external' });
    return {
      environment,
      dispose: async () => {
        await environment.dispose();
        await database.drop();
      },
    };
  },
  copy: async (environment) => {
    const name = newTestDatabaseName();
    const source = new URL(environment.env.DATABASE_URL).pathname.slice(1);
    const server = new Client({ connectionString: TEST_POSTGRES_URL });
    await server.connect();
    try {
      await server.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
    } finally {
      await server.end();
    }
    const url = databaseUrlFor(TEST_POSTGRES_URL, name);
    const sql = async (statement: string, values: unknown[] = []) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        let n = 0;
        return (await client.query(statement.replace(/\?/g, () => `$${++n}`), values)).rows;
      } finally {
        await client.end();
      }
    };
    return {
      env: { ...environment.env, DATABASE_URL: url },
      sql,
      makeRoomAt: async (position) => {
        // Positions are an identity column: the operator drops what stands in the way first.
        await sql('ALTER TABLE events ALTER COLUMN position DROP IDENTITY');
        for (const table of ['events', 'log_leaves']) {
          await sql(`UPDATE ${table} SET position = -(position + 1) WHERE position >= ?`, [position]);
          await sql(`UPDATE ${table} SET position = -position WHERE position < 0`);
        }
      },
      dispose: () => dropDatabase(TEST_POSTGRES_URL, name),
    };
  },
};

describe.each([
  [sqlite.name, sqlite],
  [postgres.name, postgres],
])('tampering caught by `ledger audit verify` against a checkpoint saved before it: %s', (_name: string, store: Store) => {
  let environment: TestEnvironment;
  let disposeEnvironment: () => Promise<void>;
  let checkpointFile: string;
  let consents: { revoked: GrantedConsent; deleted: GrantedConsent; rewritten: GrantedConsent };
  /** Each event's leaf index, by event id, and the ledger's events in position order. */
  let leafIndexOf: Map<string, number>;
  let events: StoredEventRow[];

  const streamOf = (consent: GrantedConsent) => events.find((e) => e.type === 'ConsentGranted' && JSON.parse(e.data).redecConsentId === consent.redecConsentId)!.stream_id;
  const verify = (copy: LedgerCopy) => runCli(['audit', 'verify', '--checkpoint', checkpointFile], copy.env);

  async function onCopy(tamper: (copy: LedgerCopy) => Promise<unknown>) {
    const copy = await store.copy(environment);
    try {
      await tamper(copy);
      const result = await verify(copy);
      return { status: result.status, intact: result.json?.intact, mismatch: result.json?.log?.firstMismatch, stderr: result.stderr };
    } finally {
      await copy.dispose();
    }
  }

  beforeAll(async () => {
    ({ environment, dispose: disposeEnvironment } = await store.environment());
    const api = await startApiApp(environment);
    try {
      const a = await api.tenantKey([...SCOPES]);
      const grants = redecConsents(api, a.apiKey);
      const revoked = await grants.grant({ occurredAt: Date.now() - 3 * MINUTE });
      const deleted = await grants.grant({ occurredAt: Date.now() - 2 * MINUTE });
      const rewritten = await grants.grant();
      expect((await grants.revoke(revoked)).status).toBe(201);
      await grants.grant();
      consents = { revoked, deleted, rewritten };
      const checkpoint = await api.http.get('/v1/ledger/checkpoint').set('Authorization', `Bearer ${a.apiKey}`).buffer(true).parse(textBody);
      checkpointFile = join(mkdtempSync(join(tmpdir(), 'ledger-checkpoint-')), 'checkpoint.txt');
      writeFileSync(checkpointFile, checkpoint.body as string);
      const all = await api.store.readAll();
      leafIndexOf = new Map((await api.store.log!.leavesOf(all.map((e) => e.id))).map((l) => [l.eventId, l.leafIndex]));
    } finally {
      await api.close();
    }
    const copy = await store.copy(environment);
    try {
      events = (await copy.sql('SELECT * FROM events ORDER BY position')).map((r) => ({ ...r, position: Number(r.position), revision: Number(r.revision), data: typeof r.data === 'string' ? r.data : JSON.stringify(r.data), metadata: typeof r.metadata === 'string' ? r.metadata : JSON.stringify(r.metadata) }));
    } finally {
      await copy.dispose();
    }
  }, SLOW);
  afterAll(async () => {
    await disposeEnvironment?.();
  });

  it('reports the untouched ledger intact against the checkpoint, which it also keeps', async () => {
    const untouched = await store.copy(environment);
    try {
      const result = await verify(untouched);
      expect({ status: result.status, intact: result.json.intact, log: result.json.log }).toEqual({
        status: 0,
        intact: true,
        log: { size: events.length, root: expect.any(String), checkpointsChecked: expect.any(Number), firstMismatch: null },
      });
      expect(result.json.log.checkpointsChecked).toBeGreaterThanOrEqual(2);
    } finally {
      await untouched.dispose();
    }
  }, SLOW);

  it("reports a consent's whole stream deleted at its first leaf, which the hash chains alone cannot see", async () => {
    const stream = streamOf(consents.deleted);
    const first = events.find((e) => e.stream_id === stream)!;
    const result = await onCopy((copy) => copy.sql('DELETE FROM events WHERE stream_id = ?', [stream]));
    expect(result).toMatchObject({ status: 1, intact: false, mismatch: { leafIndex: leafIndexOf.get(first.event_id), reason: 'leaf_missing' } });
  }, SLOW);

  it("reports a stream's last fact (a revocation) dropped at its leaf", async () => {
    const revocation = events.find((e) => e.type === 'RevocationRecorded')!;
    const result = await onCopy((copy) => copy.sql('DELETE FROM events WHERE event_id = ?', [revocation.event_id]));
    expect(result).toMatchObject({ status: 1, mismatch: { leafIndex: leafIndexOf.get(revocation.event_id), reason: 'leaf_missing' } });
  }, SLOW);

  it("reports the ledger's tail cut off, leaves and checkpoints of it too, as truncated where it now ends", async () => {
    const keep = events.length - 5;
    const cut = events[keep].position;
    const result = await onCopy(async (copy) => {
      await copy.sql('DELETE FROM events WHERE position >= ?', [cut]);
      await copy.sql('DELETE FROM log_leaves WHERE position >= ?', [cut]);
      await copy.sql('DROP TRIGGER ' + (store.name === 'SQLite' ? 'log_checkpoints_not_deleted' : 'log_checkpoints_append_only ON log_checkpoints'));
      await copy.sql('DELETE FROM log_checkpoints');
    });
    expect(result).toMatchObject({ status: 1, mismatch: { leafIndex: keep, reason: 'truncated' } });
  }, SLOW);

  /** Rewrites the stream's first fact and recomputes the stream's chain (and, asked, its leaves) as an operator would. */
  async function rewriteStream(copy: LedgerCopy, streamId: string, { leaves }: { leaves: boolean }) {
    let previous: string | null = null;
    for (const event of events.filter((e) => e.stream_id === streamId)) {
      const data = event.revision === 0 ? event.data.replace(/"channel":"[a-z_]+"/, '"channel":"in_person"') : event.data;
      expect(event.revision > 0 || data !== event.data).toBe(true);
      const hash = hashEventText(previous, streamId, event.revision, event.event_id, event.type, data, event.metadata);
      await copy.sql('UPDATE events SET data = ?, hash = ?, previous_hash = ? WHERE event_id = ?', [data, hash, previous, event.event_id]);
      if (leaves) {
        const leaf = ledgerLeaf({ streamId, revision: event.revision, eventId: event.event_id, type: event.type, recordedAt: JSON.parse(event.metadata).recordedAt, hash });
        await copy.sql('UPDATE log_leaves SET leaf = ? WHERE position = ?', [leaf, event.position]);
      }
      previous = hash;
    }
  }

  it('reports a stream rewritten with its chain recomputed at its first leaf, and, its leaves rewritten too, by the checkpoint', async () => {
    const stream = streamOf(consents.rewritten);
    const first = events.find((e) => e.stream_id === stream)!;
    const chained = await onCopy((copy) => rewriteStream(copy, stream, { leaves: false }));
    expect(chained).toMatchObject({ status: 1, mismatch: { leafIndex: leafIndexOf.get(first.event_id), reason: 'leaf_differs' } });
    // Leaves rewritten as well: only a checkpoint taken before shows it; every leaf below the last checkpoint that matches is as it was.
    const releaved = await onCopy((copy) => rewriteStream(copy, stream, { leaves: true }));
    expect(releaved).toMatchObject({ status: 1, mismatch: { leafIndex: expect.any(Number), reason: 'checkpoint_root' } });
    expect(releaved.mismatch.leafIndex).toBeLessThanOrEqual(leafIndexOf.get(first.event_id)!);
  }, SLOW);

  it('reports an event inserted in the middle at its place, and one appended with a past recordedAt as backdated', async () => {
    const at = events[10];
    const forged = (streamId: string, recordedAt: number) => {
      const metadata = JSON.stringify({ tenantId: JSON.parse(at.metadata).tenantId, correlationId: randomUUID(), recordedAt, schemaVersion: 1 });
      const data = JSON.stringify({ note: 'forged' });
      const id = randomUUID();
      return [id, streamId, 0, 'ConsentGranted', data, metadata, recordedAt, hashEventText(null, streamId, 0, id, 'ConsentGranted', data, metadata)];
    };
    const insert = 'INSERT INTO events (position, event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)';
    const middle = await onCopy(async (copy) => {
      await copy.makeRoomAt(at.position);
      await copy.sql(insert, [at.position, ...forged(`forged-${randomUUID()}`, JSON.parse(at.metadata).recordedAt)]);
    });
    expect(middle).toMatchObject({ status: 1, mismatch: { leafIndex: leafIndexOf.get(at.event_id), reason: 'leaf_order' } });

    const lastWeek = Date.now() - 7 * 24 * 60 * MINUTE;
    const backdated = await onCopy(async (copy) => {
      // At the end: the store gives it the next position.
      await copy.sql(insert.replace('position, ', '').replace('?, ', ''), forged(`forged-${randomUUID()}`, lastWeek));
      // The service (or any command) opening the ledger enters the new event in the tree, at the end.
      expect((await runCli(['log', 'checkpoint'], copy.env)).status).toBe(0);
    });
    expect(backdated).toMatchObject({ status: 1, mismatch: { leafIndex: events.length, reason: 'backdated' } });
  }, SLOW);

  it('keeps the checkpoints signed before a key rotation verifiable with LEDGER_LOG_PREVIOUS_VERIFIER_KEYS, and only with it', async () => {
    const copy = await store.copy(environment);
    try {
      const previous = logIdentity({ origin: copy.env.LEDGER_LOG_ORIGIN, signingKey: Buffer.from(copy.env.LEDGER_LOG_SIGNING_KEY, 'hex') });
      const seed = randomBytes(32).toString('hex');
      const rotated = { ...copy.env, LEDGER_LOG_SIGNING_KEY: seed, LEDGER_LOG_PREVIOUS_VERIFIER_KEYS: previous.verifierKey };
      const newVkey = (await runCli(['log', 'verifier-key'], rotated)).json.verifierKey as string;
      expect(newVkey).not.toBe(previous.verifierKey);
      // The ledger grows, and its next checkpoint is signed with the new key only.
      expect((await runCli(['tenant', 'create', '--name', 'Banco Rotado'], rotated)).status).toBe(0);
      const issued = await runCli(['log', 'checkpoint'], rotated);
      expect(() => openNote(issued.json.checkpoint, [noteVerifier(newVkey)])).not.toThrow();
      expect(() => openNote(issued.json.checkpoint, [noteVerifier(previous.verifierKey)])).toThrow(NoteError);
      const verified = await runCli(['audit', 'verify', '--checkpoint', checkpointFile], rotated);
      expect({ status: verified.status, mismatch: verified.json.log.firstMismatch }).toEqual({ status: 0, mismatch: null });
      expect(verified.json.log.checkpointsChecked).toBeGreaterThanOrEqual(3);
      // Without the previous verifier key, the checkpoints it signed are no longer the log's.
      const forgetful = { ...copy.env, LEDGER_LOG_SIGNING_KEY: seed };
      const refusedFile = await runCli(['audit', 'verify', '--checkpoint', checkpointFile], forgetful);
      expect({ status: refusedFile.status, code: refusedFile.json.error?.code }).toEqual({ status: 1, code: 'CHECKPOINT_REFUSED' });
      const unsigned = await runCli(['audit', 'verify'], forgetful);
      expect({ status: unsigned.status, reason: unsigned.json.log.firstMismatch?.reason }).toEqual({ status: 1, reason: 'checkpoint_unsigned' });
    } finally {
      await copy.dispose();
    }
  }, SLOW);
});
