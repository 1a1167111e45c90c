import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { NewEvent, PostgresEventStore, SqliteEventStore, hashEventText, ledgerLeaf, leafRecordedAt, storedJson } from '@ledger/event-store';
import { createDatabase, databaseUrlFor, dropDatabase, migratePostgres, timeOrderedId } from '@ledger/platform';
// The stores' own schemas: the raw ceilings get exactly their tables (and, for SQLite, pragmas).
import { EVENT_STORE_MIGRATIONS } from '../libs/event-store/src/postgres/schema';
import { openDatabase } from '../libs/event-store/src/sqlite/schema';
import { median } from './median';

/**
 * Durable appends to the event stores, each scenario beside its raw
 * baseline and beside the same store appending without the ledger's Merkle
 * tree (`merkleTree: false`, decision 0058), measured in the same run. SQLite: plain better-sqlite3 INSERTs of rows of the same shape
 * and size, into the same table with the same settings, committed in
 * transactions as large as the store's group commit can at best make them.
 * PostgreSQL: plain `pg` INSERTs of the same rows into the same table, one
 * connection per writer, each append its own transaction with
 * synchronous_commit=on, as writers without the store would commit them
 * (the server groups their WAL flushes itself). See bench/README.md.
 */

export interface Scenario {
  name: string;
  /** Concurrent writers, each appending to its own stream with the exact expected revision. */
  writers: number;
  /** Events per append. */
  batchSize: number;
  /** Events appended in total by all writers. */
  events: number;
}

export interface ScenarioResult extends Scenario {
  /** Medians over the rounds. */
  storeEventsPerSecond: number;
  rawEventsPerSecond: number;
  /** Process CPU time (user + system) per event: less sensitive than throughput to other load on the machine. */
  storeCpuMicrosPerEvent: number;
  rawCpuMicrosPerEvent: number;
  /** store / raw. */
  ratio: number;
  /** Appends committed per transaction by the store, on average. */
  appendsPerTransaction: number;
  /** The same store appending without the tree (`merkleTree: false`): medians over the same rounds. */
  withoutTreeEventsPerSecond: number;
  withoutTreeCpuMicrosPerEvent: number;
  withoutTreeAppendsPerTransaction: number;
  /** With the tree / without it (store / store without the tree). */
  treeRatio: number;
  /**
   * The integration that hashes the appended leaves into the tree (as the
   * checkpoint issuer does), timed after the appends: leaves per second and
   * CPU per leaf, medians over the rounds.
   */
  integrationLeavesPerSecond: number;
  integrationCpuMicrosPerLeaf: number;
  /** With the tree, appends and their integration both timed, / without it: all the tree costs. */
  treeRatioWithIntegration: number;
}

/** The tree's cost at 64 writers: with it / without it, on each store (decision 0058). */
export const TARGET_TREE_RATIO_64_WRITERS = 0.85;

/** The appends of 64 concurrent writers, one event each: the service's shape under load. */
export const SIXTY_FOUR_WRITERS: Scenario = { name: '64 writers, single-event appends', writers: 64, batchSize: 1, events: 19_200 };

const SCENARIOS: readonly Scenario[] = [
  { name: '1 writer, single-event appends', writers: 1, batchSize: 1, events: 1_000 },
  { name: '16 writers, single-event appends', writers: 16, batchSize: 1, events: 8_000 },
  SIXTY_FOUR_WRITERS,
  { name: '1 writer, 100-event batch appends', writers: 1, batchSize: 100, events: 20_000 },
];

/**
 * Store and raw runs alternate and each figure is the median of its rounds,
 * so a burst of other work on the machine (disk or CPU) does not decide the ratio.
 */
const ROUNDS = 3;
/** Distinct event contents cycled through by the store runs (the raw rows are all distinct). */
const CONTENT_POOL = 256;

interface Measurement {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

/** Where one measurement runs: a fresh SQLite file or a fresh PostgreSQL database, and the store and raw writer for it. */
interface Target {
  fresh<T>(measure: (where: string) => Promise<T>): Promise<T>;
  open(where: string, options: { merkleTree: boolean }): StoreWithStats;
  raw(where: string, scenario: Scenario): Promise<Measurement>;
}

export type StoreWithStats = SqliteEventStore | PostgresEventStore;

const SQLITE: Target = { fresh: inTempDir, open: (file, options) => new SqliteEventStore(file, options), raw: measureRaw };

/** The server the PostgreSQL figures are measured on (BENCH_POSTGRES_URL, else DATABASE_URL's, else the local one). */
export const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const POSTGRES: Target = { fresh: inTempDatabase, open: (url, options) => new PostgresEventStore(url, options), raw: measureRawPostgres };

export async function runEventStoreBench(log: (line: string) => void): Promise<ScenarioResult[]> {
  return runScenarios('SQLite', SQLITE, log);
}

/** The same scenarios on PostgreSQL, in a database created for each measurement and dropped after it. */
export async function runPostgresEventStoreBench(log: (line: string) => void): Promise<ScenarioResult[]> {
  return runScenarios('PostgreSQL', POSTGRES, log);
}

/** BENCH_EVENT_STORE_SCENARIOS: comma-separated starts of scenario names (`64 writers`) to run only those, while tuning. */
function scenariosAsked(): readonly Scenario[] {
  const asked = (process.env.BENCH_EVENT_STORE_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return asked.length === 0 ? SCENARIOS : SCENARIOS.filter((scenario) => asked.some((start) => scenario.name.startsWith(start)));
}

async function runScenarios(label: string, target: Target, log: (line: string) => void): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const scenario of scenariosAsked()) {
    log(`event store (${label}): ${scenario.name} (${scenario.events} events)...`);
    const raws: Measurement[] = [];
    const stores: Array<Measurement & { appendsPerTransaction: number; integration?: Measurement }> = [];
    const withoutTree: Array<Measurement & { appendsPerTransaction: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      raws.push(await target.fresh((where) => target.raw(where, scenario)));
      // With and without the tree in turn, each first in every other round, so neither always follows the raw run.
      const withTree = () => target.fresh((where) => measureStore(target.open(where, { merkleTree: true }), scenario, true));
      const without = () => target.fresh((where) => measureStore(target.open(where, { merkleTree: false }), scenario, false));
      if (round % 2 === 0) {
        stores.push(await withTree());
        withoutTree.push(await without());
      } else {
        withoutTree.push(await without());
        stores.push(await withTree());
      }
    }
    const store = median(stores.map((m) => m.eventsPerSecond));
    const raw = median(raws.map((m) => m.eventsPerSecond));
    const bare = median(withoutTree.map((m) => m.eventsPerSecond));
    const integrations = stores.map((m) => m.integration as Measurement);
    // Appends then integration, one after the other: the seconds of both per event.
    const withIntegration = median(stores.map((m, i) => 1 / (1 / m.eventsPerSecond + 1 / integrations[i].eventsPerSecond)));
    results.push({
      ...scenario,
      storeEventsPerSecond: store,
      rawEventsPerSecond: raw,
      storeCpuMicrosPerEvent: median(stores.map((m) => m.cpuMicrosPerEvent)),
      rawCpuMicrosPerEvent: median(raws.map((m) => m.cpuMicrosPerEvent)),
      ratio: store / raw,
      appendsPerTransaction: median(stores.map((m) => m.appendsPerTransaction)),
      withoutTreeEventsPerSecond: bare,
      withoutTreeCpuMicrosPerEvent: median(withoutTree.map((m) => m.cpuMicrosPerEvent)),
      withoutTreeAppendsPerTransaction: median(withoutTree.map((m) => m.appendsPerTransaction)),
      treeRatio: store / bare,
      integrationLeavesPerSecond: median(integrations.map((m) => m.eventsPerSecond)),
      integrationCpuMicrosPerLeaf: median(integrations.map((m) => m.cpuMicrosPerEvent)),
      treeRatioWithIntegration: withIntegration / bare,
    });
  }
  return results;
}

/**
 * The scenario's appends into `store`, timed; closes the store. `withTree`
 * also times the integration of the appended leaves afterwards. Each writer
 * appends to a new stream `<streams>-<writer>`.
 */
export async function measureStore(store: StoreWithStats, scenario: Scenario, withTree: boolean, streams = 'bench') {
  // Opening (migrations) is not timed.
  await store.headPosition();
  const appendsPerWriter = scenario.events / scenario.writers / scenario.batchSize;
  // Ids and contents are made before the clock starts, as the raw rows are;
  // events are assembled as appended, so they die young as in the service.
  // Time-ordered, as the service makes event ids (decision 0082).
  const ids = Array.from({ length: scenario.events }, () => timeOrderedId(Date.now()));
  const contents = Array.from({ length: CONTENT_POOL }, () => sampleEvent());
  let next = 0;
  const nextEvent = (): NewEvent => {
    const { type, data, metadata } = contents[next % CONTENT_POOL];
    return { id: ids[next++], type, data, metadata };
  };
  const writer = async (w: number) => {
    for (let i = 0; i < appendsPerWriter; i += 1) {
      const batch = Array.from({ length: scenario.batchSize }, nextEvent);
      const expected = i === 0 ? 'no_stream' : i * scenario.batchSize - 1;
      await store.append(`${streams}-${w}`, batch, expected);
    }
  };
  const clock = startClock();
  await Promise.all(Array.from({ length: scenario.writers }, (_, w) => writer(w)));
  const measurement = clock.stop(scenario.events);
  const stats = store.stats();
  let integration: Measurement | undefined;
  if (withTree) {
    const integrating = startClock();
    await store.log.integrate();
    integration = integrating.stop(scenario.events);
  }
  await store.close();
  return { ...measurement, appendsPerTransaction: stats.appends / stats.transactions, integration };
}

/**
 * The ceiling: the same rows the store writes (an event of the same size,
 * its JSON, a SHA-256 hash and link, and its leaf in the ledger's tree),
 * prepared before the clock starts, so only SQLite's work and the fsyncs are
 * timed. The file is opened by the
 * store's own `openDatabase`, so the events table (columns, unique indexes,
 * AUTOINCREMENT) and the pragmas (WAL, synchronous=FULL, temp_store, busy
 * timeout) are the store's, and each transaction is `BEGIN IMMEDIATE` as a
 * group's is.
 */
async function measureRaw(file: string, scenario: Scenario): Promise<Measurement> {
  const db = new Database(file);
  openDatabase(db);
  const insert = db.prepare(
    `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLeaf = db.prepare('INSERT INTO log_leaves (leaf_index, position, leaf) VALUES (?, ?, ?)');
  // One writer commits one append per transaction; N writers at best N appends per transaction.
  const rowsPerTransaction = scenario.writers * scenario.batchSize;
  const rows = sampleRows(scenario);
  const leaves = rows.map(leafOfRow);
  const commit = db.transaction((first: number, end: number) => {
    for (let i = first; i < end; i += 1) insertLeaf.run(i, insert.run(...rows[i]).lastInsertRowid, leaves[i]);
  }).immediate;
  const clock = startClock();
  for (let i = 0; i < rows.length; i += rowsPerTransaction) commit(i, Math.min(rows.length, i + rowsPerTransaction));
  const measurement = clock.stop(scenario.events);
  db.close();
  return measurement;
}

/**
 * The PostgreSQL baseline: the same rows, into the store's own tables, with
 * `pg` alone (each leaf indexed by its event's position: without the
 * store's lock there is no gap-free order to give it). Each writer has its own connection and commits each of its
 * appends as one transaction (one multi-row insert, like the store's), with
 * synchronous_commit=on like the store: the durability is the same, and
 * concurrent writers share WAL flushes only as far as the server groups them.
 */
async function measureRawPostgres(url: string, scenario: Scenario): Promise<Measurement> {
  const pool = new Pool({ connectionString: url, max: scenario.writers, options: '-c synchronous_commit=on' });
  // pool.end() resolves before its connections have closed; the database's drop (WITH FORCE) right after may
  // terminate one still closing, whose error would otherwise be unhandled and end the run.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, EVENT_STORE_MIGRATIONS);
    const rows = sampleRows(scenario).map((row) => [...row, leafOfRow(row)]);
    const appends: unknown[][][][] = Array.from({ length: scenario.writers }, () => []);
    for (let i = 0; i < rows.length; i += scenario.batchSize) {
      appends[Math.floor(i / scenario.batchSize) % scenario.writers].push(rows.slice(i, i + scenario.batchSize));
    }
    // Every connection opened before the clock starts.
    await Promise.all(Array.from({ length: scenario.writers }, () => pool.connect().then((client) => client.release())));
    const clock = startClock();
    await Promise.all(
      appends.map(async (writerAppends) => {
        for (const batch of writerAppends) {
          const columns = Array.from({ length: 10 }, (_, c) => batch.map((row) => row[c]));
          await pool.query(
            `WITH staged AS (
               SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::json[], $6::json[], $7::bigint[], $8::text[], $9::text[], $10::bytea[])
                 AS s (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash, leaf)
             ), inserted AS (
               INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
               SELECT event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash FROM staged
               RETURNING event_id, position
             )
             INSERT INTO log_leaves (leaf_index, position, leaf) SELECT i.position, i.position, s.leaf FROM inserted i JOIN staged s USING (event_id)`,
            columns,
          );
        }
      }),
    );
    return clock.stop(scenario.events);
  } finally {
    await pool.end();
  }
}

/** A grant-sized event: the fields a consent fact carries, about 600 bytes of JSON. */
function sampleEvent(): NewEvent {
  return {
    id: timeOrderedId(Date.now()),
    type: 'redec.consent.granted',
    data: {
      redecConsentId: randomUUID(),
      interactionId: randomUUID(),
      customerId: randomUUID(),
      internalConsentCode: 'K7Q2M9X4T1B8N5R3W6ZA',
      grantedAt: 1_763_800_000_000,
      scopeIds: ['redec-debt'],
      objectiveCodes: ['02', '03'],
      finalityCode: '2',
      sourceSystem: 'core-loans',
      sourceReference: 'loan-application-0001234567',
      evidence: { kind: 'electronic', authentication: { method: 'otp', reference: 'auth-000123' } },
    },
    metadata: {
      tenantId: randomUUID(),
      correlationId: randomUUID(),
      causationId: randomUUID(),
      actor: 'key_01HZX3Y4W5V6U7T8S9R0Q1P2N3',
      recordedAt: 1_763_800_000_000,
      schemaVersion: 1,
      idempotencyKey: randomUUID(),
    },
  };
}

/**
 * The rows the store would write for the scenario, in commit order: streams
 * interleaved as the writers' appends are, each stream chained.
 */
function sampleRows(scenario: Scenario): unknown[][] {
  const heads = new Map<string, string | null>();
  const rows: unknown[][] = [];
  for (let index = 0; index < scenario.events; index += 1) {
    const writer = Math.floor(index / scenario.batchSize) % scenario.writers;
    const streamId = `bench-${writer}`;
    const round = Math.floor(index / (scenario.writers * scenario.batchSize));
    const revision = round * scenario.batchSize + (index % scenario.batchSize);
    const event = sampleEvent();
    const data = storedJson(event.data);
    const metadata = storedJson(event.metadata);
    const previousHash = heads.get(streamId) ?? null;
    const hash = hashEventText(previousHash, streamId, revision, event.id, event.type, data, metadata);
    heads.set(streamId, hash);
    rows.push([event.id, streamId, revision, event.type, data, metadata, Date.now(), hash, previousHash]);
  }
  return rows;
}

/** The leaf the store would store for a row of `sampleRows`. */
function leafOfRow([eventId, streamId, revision, type, , metadata, , hash]: unknown[]): Buffer {
  const recordedAt = leafRecordedAt((JSON.parse(metadata as string) as { recordedAt?: unknown }).recordedAt);
  return ledgerLeaf({ streamId: streamId as string, revision: revision as number, eventId: eventId as string, type: type as string, recordedAt, hash: hash as string });
}

async function inTempDir<T>(measure: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  try {
    return await measure(join(dir, 'bench.sqlite'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A name for a benchmark's own database on POSTGRES_SERVER. */
export function benchDatabaseName(): string {
  return `ledger_bench_${process.pid}_${randomUUID().slice(0, 8)}`;
}

async function inTempDatabase<T>(measure: (url: string) => Promise<T>): Promise<T> {
  const name = benchDatabaseName();
  await createDatabase(POSTGRES_SERVER, name);
  try {
    return await measure(databaseUrlFor(POSTGRES_SERVER, name));
  } finally {
    await dropDatabase(POSTGRES_SERVER, name);
  }
}

function startClock() {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  return {
    stop(events: number): Measurement {
      const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
      const { user, system } = process.cpuUsage(cpu);
      return { eventsPerSecond: events / seconds, cpuMicrosPerEvent: (user + system) / events };
    },
  };
}
