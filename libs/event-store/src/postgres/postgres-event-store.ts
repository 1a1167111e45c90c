import type { Client, Pool, PoolClient } from 'pg';
import { Clock, createPostgresClient, createPostgresPool, isUniqueViolation, migratePostgres, systemClock } from '@ledger/platform';
import {
  AppendOptions,
  AppendResult,
  DuplicateEventIdError,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../event-store.port';
import { firstRevisionOf, isSameBatch } from '../expected-revision';
import { hashEventText } from '../integrity';
import { LeafPrefixes, leafOfColumns, leafTextOfStream } from '../ledger-leaf';
import type { LogBuildProgress } from '../log-tree';
import { RecentEvents, SubscriptionPage } from '../recent-events';
import { streamPrefixRange } from '../stream-prefix';
import {
  GroupCommitStats,
  admits,
  meetsExpectations,
  resetOutcomes,
  revisionAt,
  serializeAppend,
  settleCommitted,
  type PendingAppend,
  type StreamHead,
} from '../pending-append';
import { PostgresFinishedMarks } from './postgres-finished-marks';
import { PostgresLedgerLog, integrateOn } from './postgres-ledger-log';
import { EVENT_ID_UNIQUE, EVENT_STORE_MIGRATIONS, EVENTS_CHANNEL } from './schema';

export interface PostgresEventStoreOptions {
  /** Stamps `created` on committed events; the system clock by default. */
  clock?: Clock;
  /** How often a live subscription reads again without a notification (the fallback when LISTEN is down). */
  pollIntervalMs?: number;
  /** Connections in the pool (10 by default). */
  poolSize?: number;
  /** Hears the progress of entering events written before the ledger's tree into it, when the store opens. */
  onLogBuild?: (progress: LogBuildProgress) => void;
  /** Events entered per transaction by that build (20,000 by default). */
  logBuildBatch?: number;
  /**
   * false: append without entering events in the ledger's tree, as the store
   * did before it had one; the benchmark's baseline. The next store opened
   * with the tree (the default) enters them.
   */
  merkleTree?: boolean;
}

interface EventRow {
  position: string;
  event_id: string;
  stream_id: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: unknown;
  created: string;
  hash: string;
  previous_hash: string | null;
}

/** Where a group's leaves go: the index the next one gets, handed out in the order events are staged. */
interface LeafIndexes {
  next: number;
}

/** Rows staged by a group's pass, column by column, for one multi-row insert. */
class StagedRows {
  readonly eventIds: string[] = [];
  readonly streamIds: string[] = [];
  readonly revisions: number[] = [];
  readonly types: string[] = [];
  readonly data: string[] = [];
  readonly metadata: string[] = [];
  readonly created: number[] = [];
  readonly hashes: string[] = [];
  readonly previousHashes: Array<string | null> = [];
  readonly leafIndexes: Array<number | null> = [];
  /** Every staged event's leaf, or none when the store keeps no tree. */
  readonly leaves: string[] = [];
  /** The appends whose events these are, each with the id of its last event. */
  readonly owners: Array<{ pending: PendingAppend; lastEventId: string }> = [];

  get size(): number {
    return this.eventIds.length;
  }
}

/**
 * The ids of the streams in a range of byte order (streamPrefixRange): a walk
 * of the (stream_id, revision) index, which compares stream ids byte by byte
 * (their "C" collation, schema.ts), no row of the events table read
 * (decision 0092).
 */
export const STREAM_IDS_QUERY = 'SELECT DISTINCT stream_id FROM events WHERE stream_id >= $1 AND stream_id < $2 ORDER BY stream_id';

/** One fsync serves at most this many appends, so a burst cannot hold the append lock for long. */
const MAX_GROUP = 1000;
/** Subscriptions pull this many events at a time, so a slow consumer holds one page at most. */
const PAGE_SIZE = 500;
const DEFAULT_POLL_INTERVAL_MS = 250;
/** How long a lost LISTEN connection waits before it is opened again; subscriptions poll meanwhile. */
const RELISTEN_DELAY_MS = 1_000;
/** Thrown inside the fast path's transaction to roll it back and redo the group on the slow path. */
const REDO_ON_SLOW_PATH = Symbol('redo on slow path');
/** Events written before the ledger's tree are entered in it this many per transaction, so other writers wait little. */
const DEFAULT_LOG_BUILD_BATCH = 20_000;

const COLUMNS = 'position, event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash';
/**
 * Every append transaction takes the lock first, before anything gives the
 * transaction an id or a position. Both statements go in one round trip
 * (simple protocol), as do the notification and the commit: a lone writer
 * waits for every round trip.
 */
const BEGIN_AND_LOCK_ONLY = `BEGIN; SELECT pg_advisory_xact_lock(hashtext('ledger-event-store-append'))`;
/**
 * The same, with where the ledger's leaves stand under the lock: the next
 * leaf's index, and whether an event follows the last leaf's (each read from
 * the end of an index, so it costs the same at any size).
 */
const BEGIN_AND_LOCK = `${BEGIN_AND_LOCK_ONLY};
  SELECT COALESCE(l.leaf_index + 1, 0) AS next_leaf, COALESCE(l.position, 0) AS last_leaf_position,
         COALESCE((SELECT position FROM events ORDER BY position DESC LIMIT 1), 0) AS last_position
  FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT leaf_index, position FROM log_leaves ORDER BY leaf_index DESC LIMIT 1) l ON true`;
/** The notification is delivered at commit, and only if the transaction commits. */
const NOTIFY_AND_COMMIT = `SELECT pg_notify('${EVENTS_CHANNEL}', ''); COMMIT`;
/**
 * Separates the group's leaves in the one text they travel in: a leaf's
 * fields are a hash, decimals and JSON string literals, which write a
 * control character escaped, so it never occurs in a leaf.
 */
const LEAF_SEPARATOR = '\u001e';

/**
 * The group's events and their leaves, in one statement: positions are given
 * in the staged order, and each leaf is stored with its event's position.
 * Leaves travel as one text, split in the database (a text array would have
 * every leaf's quotes escaped by the client and unescaped by the server),
 * and become bytes there.
 */
const INSERT_EVENTS = `
  WITH staged AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[],
                         $10::bigint[], string_to_array($11::text, chr(30)))
         WITH ORDINALITY AS s (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash, leaf_index, leaf, n)
  ), inserted AS (
    INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
    SELECT event_id, stream_id, revision, type, data::json, metadata::json, created, hash, previous_hash FROM staged ORDER BY n
    RETURNING event_id, position
  ), leaves AS (
    INSERT INTO log_leaves (leaf_index, position, leaf)
    SELECT s.leaf_index, i.position, convert_to(s.leaf, 'UTF8') FROM inserted i JOIN staged s USING (event_id) WHERE s.leaf_index IS NOT NULL
  )
  SELECT event_id, position FROM inserted`;
const SELECT_HEADS = `
  SELECT s.stream_id, h.revision, h.hash
  FROM unnest($1::text[]) AS s (stream_id)
  CROSS JOIN LATERAL (
    SELECT revision, hash FROM events e WHERE e.stream_id = s.stream_id ORDER BY revision DESC LIMIT 1
  ) h`;
/** The recorded events from the first id's place on, for recognising a retry. */
const SELECT_FROM_EVENT = `
  SELECT e.event_id, e.revision, e.position
  FROM events first JOIN events e ON e.stream_id = first.stream_id AND e.revision >= first.revision
  WHERE first.event_id = $1 AND first.stream_id = $2
  ORDER BY e.revision LIMIT $3`;
/** Leaves are the events' in position order: the events after the last leaf's position have none yet. */
const SELECT_UNLEAVED = `
  SELECT position, event_id, stream_id, revision, type, metadata->'recordedAt' AS recorded_at, hash
  FROM events WHERE position > $1 ORDER BY position LIMIT $2`;
const INSERT_LEAVES = `
  INSERT INTO log_leaves (leaf_index, position, leaf) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])`;
/**
 * Only transactions that have all ended are read: below the snapshot's xmin
 * no transaction can still commit, so what a subscription reads there is
 * final and it can never step past an event that commits later.
 */
const SELECT_SETTLED_AFTER = `
  SELECT ${COLUMNS} FROM events
  WHERE position > $1 AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY position LIMIT $2`;

/**
 * The event store on PostgreSQL, for several processes on one database
 * (decision 0031), with the SQLite adapter's group commit:
 *
 * - Appends queued while a group is in flight are committed together in the
 *   next transaction, so one WAL flush serves many callers; a caller's
 *   promise settles after the commit, and one refused append never fails
 *   the others.
 * - Every group transaction first takes one advisory lock, before it writes:
 *   groups of all processes commit one after another, so positions are in
 *   commit order (what `readAll` and a checkpoint rely on) and stream heads
 *   read under the lock are current, those of a guarded append's expected
 *   streams included: no other process can move one before the commit.
 * - Fast path: heads of the streams written and expected are read once per
 *   group, in one query, each append is judged against them (they follow
 *   the group's appends in memory) and its rows staged, and the group is
 *   written by one multi-row insert.
 *   Slow path: when an insert fails anyway (an event id already recorded
 *   elsewhere), the transaction is rolled back and the group redone with a
 *   savepoint per append, which undoes the failing append alone.
 * - Subscriptions read below the transaction-id high-water mark and are
 *   woken by LISTEN/NOTIFY, polling as the fallback.
 *
 * Schema migrations run when the store opens; every call waits for them.
 */
export class PostgresEventStore implements EventStore {
  readonly log: PostgresLedgerLog;
  readonly finishedMarks: PostgresFinishedMarks;
  private readonly pool: Pool;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly ready: Promise<void>;
  private queue: PendingAppend[] = [];
  /** The drain committing groups, while one runs. */
  private draining: Promise<void> | undefined;
  private closed = false;
  private readonly waiters = new Set<() => void>();
  /** Counts wake-ups, so a subscription notices one that came while it was reading. */
  private changes = 0;
  private listener: Client | undefined;
  private relisten: NodeJS.Timeout | undefined;
  private readonly counters = { appends: 0, transactions: 0, slowPathGroups: 0 };
  private readonly recent: RecentEvents;
  private readonly merkleTree: boolean;
  private readonly leafPrefixes = new LeafPrefixes();
  private readonly readSubscriptionPage = async (after: number) =>
    (await this.pool.query<EventRow>(SELECT_SETTLED_AFTER, [after, PAGE_SIZE])).rows.map(toRecordedEvent);

  constructor(
    private readonly connectionString: string,
    options: PostgresEventStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock();
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.recent = new RecentEvents(PAGE_SIZE, this.pollIntervalMs);
    this.merkleTree = options.merkleTree ?? true;
    this.pool = createPostgresPool(connectionString, 'ledger-event-store', options.poolSize);
    this.ready = migratePostgres(this.pool, EVENT_STORE_MIGRATIONS).then(() => (this.merkleTree ? this.buildLog(options.logBuildBatch ?? DEFAULT_LOG_BUILD_BATCH, options.onLogBuild) : undefined));
    this.log = new PostgresLedgerLog(this.pool, this.ready);
    this.finishedMarks = new PostgresFinishedMarks(this.pool, this.ready);
    // Every call awaits `ready` and reports its failure; this only keeps it from being unhandled meanwhile.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the schema is migrated; rejects when the database cannot be reached or migrated. */
  opened(): Promise<void> {
    return this.ready;
  }

  append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) throw new Error('event store is closed');
      this.queue.push(serializeAppend(streamId, events, expectedRevision, options, resolve, reject));
      // The first append after a quiet spell waits one turn for its companions; later ones queue behind the group in flight.
      this.draining ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const backwards = options.direction === 'backwards';
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND revision ${backwards ? '<=' : '>='} $2
       ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [streamId, options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0), options.maxCount ?? null],
    );
    return rows.map(toRecordedEvent);
  }

  /** Every committed event after the position: positions are in commit order, so a page never has a hole filled later. */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`,
      [options.after ?? 0, options.maxCount ?? null],
    );
    return rows.map(toRecordedEvent);
  }

  async streamIds(prefix: string): Promise<string[]> {
    await this.ready;
    const { from, before } = streamPrefixRange(prefix);
    const { rows } = await this.pool.query<{ stream_id: string }>(STREAM_IDS_QUERY, [from, before]);
    return rows.map((row) => row.stream_id);
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<readonly RecordedEvent[]> {
    const { signal } = options;
    const stopped = () => this.closed || signal?.aborted === true;
    await this.ready;
    this.listen();
    let after = options.after ?? 0;
    while (!stopped()) {
      const seen = this.changes;
      let page: SubscriptionPage;
      try {
        page = await this.recent.pageAfter(after, this.readSubscriptionPage);
      } catch (error) {
        if (stopped()) return;
        throw error;
      }
      if (page.events.length > 0) {
        yield page.events;
        after = page.events[page.events.length - 1].position;
        if (stopped()) return;
      }
      if (page.fromStore && page.events.length < PAGE_SIZE) await this.nextChange(signal, seen);
    }
  }

  async headPosition(): Promise<number> {
    await this.ready;
    const { rows } = await this.pool.query<{ head: string }>('SELECT COALESCE(MAX(position), 0) AS head FROM events');
    return Number(rows[0].head);
  }

  /** Commits what is pending, ends every subscription, then closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Opening (migrations, the tree's build) uses the pool: let it end first.
    await this.ready.catch(() => undefined);
    await this.draining;
    this.wakeAll();
    clearTimeout(this.relisten);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  stats(): GroupCommitStats {
    return { ...this.counters, subscriptionReads: this.recent.reads };
  }

  private async drain(): Promise<void> {
    try {
      await this.ready;
      while (this.queue.length > 0) await this.commitGroup(this.queue.splice(0, MAX_GROUP));
    } catch (error) {
      // The schema never became ready: nothing queued can be written.
      for (const pending of this.queue.splice(0)) pending.reject(error);
    } finally {
      this.draining = undefined;
    }
  }

  /** Commits one group and settles its callers; never throws. */
  private async commitGroup(group: PendingAppend[]): Promise<void> {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      try {
        await this.runFast(client, group);
      } catch (error) {
        await client.query('ROLLBACK');
        if (error !== REDO_ON_SLOW_PATH) throw error;
        resetOutcomes(group);
        this.counters.slowPathGroups += 1;
        await this.runSlow(client, group);
      }
    } catch (error) {
      // The group did not commit (or its commit was not confirmed): every caller fails, and may retry the same ids.
      if (client !== undefined) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
      }
      for (const pending of group) pending.reject(error);
      return;
    }
    client.release();
    this.counters.transactions += 1;
    this.counters.appends += group.length;
    settleCommitted(group);
    this.wakeAll();
  }

  /**
   * The fast path: one transaction, heads (written and expected streams')
   * read once for the group and then tracked in memory so appends in one
   * group see each other, rows inserted together. Recognising a retry reads
   * the table, so what the group has staged so far is inserted first.
   */
  private async runFast(client: PoolClient, group: PendingAppend[]): Promise<void> {
    const leaves = await this.beginAndLock(client);
    const streamIds = new Set<string>();
    for (const pending of group) {
      streamIds.add(pending.streamId);
      if (pending.expect !== undefined) for (const { streamId } of pending.expect) streamIds.add(streamId);
    }
    const heads = await this.readHeads(client, [...streamIds]);
    let staged = new StagedRows();
    for (const pending of group) {
      const head = heads.get(pending.streamId) ?? null;
      const actual = revisionAt(head);
      let retried: AppendResult | undefined;
      if (pending.expectedRevision !== actual) {
        await this.insertOrRedo(client, staged);
        staged = new StagedRows();
        retried = await this.findRetry(client, pending, actual);
      }
      if (!admits(pending, actual, retried)) continue;
      if (pending.expect !== undefined && !meetsExpectations(pending, pending.expect, revisionIn(heads))) continue;
      heads.set(pending.streamId, this.stage(staged, pending, head, leaves));
    }
    await this.insertOrRedo(client, staged);
    await client.query(NOTIFY_AND_COMMIT);
  }

  /**
   * Begins a group's transaction under the append lock and returns where its
   * leaves go, every event without a leaf given one first (a ledger written
   * before the tree, or an event a writer left out), so leaves keep the
   * events' order. Leaves are hashed into the tree later, by the log's
   * integration: an append pays for its leaves' bytes, not their hashes
   * (decision 0058).
   */
  private async beginAndLock(client: PoolClient): Promise<LeafIndexes | undefined> {
    if (!this.merkleTree) {
      await client.query(BEGIN_AND_LOCK_ONLY);
      return undefined;
    }
    const { leaves, lastLeafPosition, unleaved } = await this.lockAndReadLeaves(client);
    if (unleaved) await this.enterUnleaved(client, leaves, lastLeafPosition, null);
    return leaves;
  }

  /** Begins a transaction under the append lock, and reads where the leaves stand. */
  private async lockAndReadLeaves(client: PoolClient): Promise<{ leaves: LeafIndexes; lastLeafPosition: number; unleaved: boolean }> {
    const results = (await client.query(BEGIN_AND_LOCK)) as unknown as Array<{ rows: Array<{ next_leaf: string; last_leaf_position: string; last_position: string }> }>;
    const row = results[results.length - 1].rows[0];
    const lastLeafPosition = Number(row.last_leaf_position);
    return { leaves: { next: Number(row.next_leaf) }, lastLeafPosition, unleaved: Number(row.last_position) > lastLeafPosition };
  }

  /** Enters up to `limit` (all: null) events after the last leaf's position, in position order; returns how many. */
  private async enterUnleaved(client: PoolClient, leafIndexes: LeafIndexes, lastLeafPosition: number, limit: number | null): Promise<number> {
    const { rows } = await client.query<{ position: string; event_id: string; stream_id: string; revision: string; type: string; recorded_at: unknown; hash: string }>(
      SELECT_UNLEAVED,
      [lastLeafPosition, limit],
    );
    const leaves = rows.map((row) => leafOfColumns(this.leafPrefixes, row.stream_id, Number(row.revision), row.event_id, row.type, row.recorded_at, row.hash));
    await client.query(INSERT_LEAVES, [leaves.map(() => leafIndexes.next++), rows.map((row) => row.position), leaves]);
    return rows.length;
  }

  /**
   * Builds the tree over a ledger written before it: gives its events their
   * leaves, in position order, a batch per transaction under the append
   * lock, then integrates them. Resumable (a batch is committed whole or not
   * at all), and a no-op once done.
   */
  private async buildLog(batchSize: number, onProgress: ((progress: LogBuildProgress) => void) | undefined): Promise<void> {
    const { rows } = await this.pool.query<{ remaining: string }>(
      'SELECT COUNT(*) AS remaining FROM events WHERE position > COALESCE((SELECT position FROM log_leaves ORDER BY leaf_index DESC LIMIT 1), 0)',
    );
    let remaining = Number(rows[0].remaining);
    if (remaining > 0) {
      const client = await this.pool.connect();
      try {
        let entered = 0;
        for (;;) {
          const { leaves, lastLeafPosition } = await this.lockAndReadLeaves(client);
          const done = await this.enterUnleaved(client, leaves, lastLeafPosition, batchSize);
          await client.query('COMMIT');
          if (done === 0) break;
          entered += done;
          remaining = Math.max(0, remaining - done);
          onProgress?.({ entered, remaining });
        }
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    await integrateOn(this.pool);
  }

  private async insertOrRedo(client: PoolClient, staged: StagedRows): Promise<void> {
    try {
      await this.insert(client, staged);
    } catch (error) {
      // Rows of a half-written append may be in the transaction: roll everything back, redo with savepoints.
      if (isUniqueViolation(error, EVENT_ID_UNIQUE)) throw REDO_ON_SLOW_PATH;
      throw error;
    }
  }

  /** The slow path: one savepoint per append, so a failing insert is undone alone. */
  private async runSlow(client: PoolClient, group: PendingAppend[]): Promise<void> {
    const leaves = await this.beginAndLock(client);
    for (const pending of group) {
      const { expect } = pending;
      // A guarded append's expected streams are read with its own, in one round trip.
      const heads = await this.readHeads(client, expect === undefined ? [pending.streamId] : [pending.streamId, ...expect.map((e) => e.streamId)]);
      const head = heads.get(pending.streamId) ?? null;
      const actual = revisionAt(head);
      const retried = pending.expectedRevision === actual ? undefined : await this.findRetry(client, pending, actual);
      if (!admits(pending, actual, retried)) continue;
      if (expect !== undefined && !meetsExpectations(pending, expect, revisionIn(heads))) continue;
      const staged = new StagedRows();
      const before = leaves?.next;
      this.stage(staged, pending, head, leaves);
      await client.query('SAVEPOINT append');
      try {
        await this.insert(client, staged);
        await client.query('RELEASE SAVEPOINT append');
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT append');
        if (leaves !== undefined && before !== undefined) leaves.next = before;
        pending.failed = true;
        pending.error = isUniqueViolation(error, EVENT_ID_UNIQUE)
          ? new DuplicateEventIdError(pending.streamId, duplicateEventId(error) ?? pending.events[0].id)
          : error;
      }
    }
    await client.query(NOTIFY_AND_COMMIT);
  }

  /** Stages the append's events after `head`, chaining their hashes and entering their leaves; returns the stream's new head. */
  private stage(staged: StagedRows, pending: PendingAppend, head: StreamHead | null, leafIndexes: LeafIndexes | undefined): StreamHead {
    const { streamId, events } = pending;
    const created = this.clock.now();
    let previousHash = head === null ? null : head.hash;
    let revision = head === null ? 0 : head.revision + 1;
    const prefix = leafIndexes === undefined ? undefined : this.leafPrefixes.of(streamId);
    for (const { id, type, data, metadata, recordedAt } of events) {
      const hash = hashEventText(previousHash, streamId, revision, id, type, data, metadata);
      const leaf = prefix === undefined ? undefined : leafTextOfStream(prefix, revision, id, type, recordedAt, hash);
      staged.leafIndexes.push(leaf !== undefined ? leafIndexes!.next++ : null);
      if (leaf !== undefined) staged.leaves.push(leaf);
      staged.eventIds.push(id);
      staged.streamIds.push(streamId);
      staged.revisions.push(revision);
      staged.types.push(type);
      staged.data.push(data);
      staged.metadata.push(metadata);
      staged.created.push(created);
      staged.hashes.push(hash);
      staged.previousHashes.push(previousHash);
      previousHash = hash;
      revision += 1;
    }
    staged.owners.push({ pending, lastEventId: events[events.length - 1].id });
    pending.result = { nextRevision: revision - 1, position: 0 };
    return { revision: revision - 1, hash: previousHash as string };
  }

  /** Inserts the staged rows and gives each append the position of its last event. */
  private async insert(client: PoolClient, staged: StagedRows): Promise<void> {
    if (staged.size === 0) return;
    const { rows } = await client.query<{ event_id: string; position: string }>(INSERT_EVENTS, [
      staged.eventIds,
      staged.streamIds,
      staged.revisions,
      staged.types,
      staged.data,
      staged.metadata,
      staged.created,
      staged.hashes,
      staged.previousHashes,
      staged.leafIndexes,
      staged.leaves.length === 0 ? null : staged.leaves.join(LEAF_SEPARATOR),
    ]);
    const positions = new Map(rows.map((row) => [row.event_id, Number(row.position)]));
    for (const { pending, lastEventId } of staged.owners) {
      (pending.result as AppendResult).position = positions.get(lastEventId) as number;
    }
  }

  private async readHeads(client: PoolClient, streamIds: string[]): Promise<Map<string, StreamHead | null>> {
    const { rows } = await client.query<{ stream_id: string; revision: string; hash: string }>(SELECT_HEADS, [streamIds]);
    return new Map(rows.map((row) => [row.stream_id, { revision: Number(row.revision), hash: row.hash }]));
  }

  /**
   * An idempotent retry: the batch's ids are already the stream's events,
   * consecutively, from where the expected revision says the batch began
   * (anywhere in the stream for `any` and `stream_exists`).
   */
  private async findRetry(
    client: PoolClient,
    pending: PendingAppend,
    actual: number | 'no_stream',
  ): Promise<AppendResult | undefined> {
    if (actual === 'no_stream') return undefined;
    const { events } = pending;
    const { rows } = await client.query<{ event_id: string; revision: string; position: string }>(SELECT_FROM_EVENT, [
      events[0].id,
      pending.streamId,
      events.length,
    ]);
    if (rows.length === 0) return undefined;
    const start = firstRevisionOf(pending.expectedRevision) ?? Number(rows[0].revision);
    if (Number(rows[0].revision) !== start || !isSameBatch(rows.map((row) => row.event_id), events)) return undefined;
    const last = rows[rows.length - 1];
    return { nextRevision: Number(last.revision), position: Number(last.position) };
  }

  /**
   * Opens the LISTEN connection on the first subscription. A commit in any
   * process notifies it; when it is lost it is opened again later, and
   * subscriptions poll meanwhile.
   */
  private listen(): void {
    if (this.listener !== undefined || this.relisten !== undefined || this.closed) return;
    const listener = createPostgresClient(this.connectionString, 'ledger-event-store-listen');
    this.listener = listener;
    const lost = () => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      void listener.end().catch(() => undefined);
      if (this.closed) return;
      this.relisten = setTimeout(() => {
        this.relisten = undefined;
        this.listen();
      }, RELISTEN_DELAY_MS);
      this.relisten.unref();
    };
    listener.on('notification', () => this.wakeAll());
    listener.on('error', lost);
    listener.on('end', lost);
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${EVENTS_CHANNEL}`))
      // Events committed while the connection was down are found by the next read.
      .then(() => this.wakeAll())
      .catch(lost);
  }

  /** Resolves on the next wake-up (a notification, a commit here), the next poll, an abort or close. */
  private nextChange(signal: AbortSignal | undefined, seen: number): Promise<void> {
    if (this.changes !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.pollIntervalMs);
      signal?.addEventListener('abort', wake, { once: true });
      this.waiters.add(wake);
    });
  }

  private wakeAll(): void {
    this.changes += 1;
    this.recent.changed();
    for (const wake of [...this.waiters]) wake();
  }
}

/** A stream's last revision in heads read for every stream a pass judges: a stream they do not hold does not exist. */
function revisionIn(heads: Map<string, StreamHead | null>): (streamId: string) => number | 'no_stream' {
  return (streamId) => revisionAt(heads.get(streamId) ?? null);
}

/** The id PostgreSQL names in a unique violation's detail: `Key (event_id)=(…) already exists.` */
function duplicateEventId(error: unknown): string | undefined {
  return /\(event_id\)=\((.*)\) already exists/.exec((error as { detail?: string }).detail ?? '')?.[1];
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: row.data,
    metadata: row.metadata as RecordedEvent['metadata'],
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: Number(row.position),
    created: Number(row.created),
    integrity: { hash: row.hash, previousHash: row.previous_hash },
  };
}
