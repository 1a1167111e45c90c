import { realpathSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { Clock, restrictToOwner, systemClock } from '@ledger/platform';
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
import { LeafPrefixes, leafOfColumns, leafOfStream } from '../ledger-leaf';
import type { LogBuildProgress } from '../log-tree';
import { RecentEvents } from '../recent-events';
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
  type SerializedEvent,
  type StreamHead,
} from '../pending-append';
import { SqliteFinishedMarks } from './sqlite-finished-marks';
import { SqliteLedgerLog } from './sqlite-ledger-log';
import { openDatabase } from './schema';

export interface SqliteEventStoreOptions {
  /** Stamps `created` on committed events; the system clock by default. */
  clock?: Clock;
  /** How often a live subscription looks for commits made by other processes. */
  pollIntervalMs?: number;
  /** How long a commit waits for another process's write lock before failing (5 s by default). */
  busyTimeoutMs?: number;
  /** Open an existing file only, never create one (better-sqlite3 `fileMustExist`). */
  fileMustExist?: boolean;
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

/** An event without a leaf yet: what its leaf states. */
interface UnleavedRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  recorded_at: unknown;
  hash: string;
}

interface EventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  created: number;
  hash: string;
  previous_hash: string | null;
}

/** One fsync serves at most this many appends, so a burst cannot hold the write lock for long. */
const MAX_GROUP = 1000;
/** Subscriptions pull this many events at a time, so a slow consumer holds one page at most. */
const PAGE_SIZE = 500;
const DEFAULT_POLL_INTERVAL_MS = 150;
/** SQLite reads `LIMIT -1` as "no limit". */
const NO_LIMIT = -1;

/**
 * The ids of the streams in a range of byte order (streamPrefixRange): a walk
 * of the (stream_id, revision) index, one entry per event of the streams
 * listed, no row of the events table read (decision 0092).
 */
export const STREAM_IDS_QUERY = 'SELECT DISTINCT stream_id FROM events WHERE stream_id >= ? AND stream_id < ? ORDER BY stream_id';

/** Events written before the ledger's tree are entered in it this many per transaction, so other writers wait little. */
const DEFAULT_LOG_BUILD_BATCH = 20_000;

/** Stream heads kept between groups at most; beyond it the cache starts afresh. */
const MAX_CACHED_HEADS = 10_000;
/** Thrown inside the fast path's transaction to roll it back and redo the group on the slow path. */
const REDO_ON_SLOW_PATH = Symbol('redo on slow path');

/**
 * The embedded event store: one SQLite file, one long-lived connection.
 *
 * Appends made in the same event-loop turn are committed together in one
 * `BEGIN IMMEDIATE` transaction (group commit), so one fsync serves many
 * callers. A caller's promise settles only after the group's commit, so a
 * resolved append is durable, and one refused append never fails the others:
 *
 * - Fast path: each append's expected revision, and a guarded append's
 *   expectations of other streams, are checked against the streams' heads,
 *   read from the events table's (stream_id, revision) index at most once
 *   per stream per group and then tracked in memory, so appends in one group
 *   see each other. The heads are kept for the next groups while no other
 *   connection commits (PRAGMA data_version). A refused append is refused
 *   before anything of it is inserted, so nothing needs undoing.
 * - Slow path: if an insert fails anyway (an event id already recorded
 *   elsewhere hits the unique index), rows of a half-written append may be in
 *   the transaction. The whole transaction is rolled back and the group is
 *   redone with one savepoint per append, which rolls back the failing
 *   append alone.
 *
 * better-sqlite3 is synchronous: a commit (and a wait for another process's
 * write lock, up to the busy timeout) blocks the event loop while it runs.
 */
export class SqliteEventStore implements EventStore {
  readonly log: SqliteLedgerLog;
  readonly finishedMarks: SqliteFinishedMarks;
  private readonly db: Database.Database;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly fastGroup: (group: PendingAppend[]) => void;
  private readonly slowGroup: (group: PendingAppend[]) => void;
  private readonly appendInSavepoint: (pending: PendingAppend, head: StreamHead | null) => StreamHead;
  private readonly merkleTree: boolean;
  private readonly leafPrefixes = new LeafPrefixes();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Live subscriptions waiting for new events; each is woken after a commit and on close. */
  private readonly waiters = new Set<() => void>();
  /**
   * Where this connection announces its commits to every other connection to
   * the same file in this process, whatever its thread (the API follows the
   * store on a thread of its own: decision 0077), and hears theirs: their
   * subscriptions wake at the commit instead of at their next poll.
   */
  private readonly commits: BroadcastChannel;
  /**
   * Stream heads known to this connection: read from the file, then kept up
   * to date by the fast path's inserts. Valid only while no other connection
   * has committed (PRAGMA data_version unchanged, checked inside each group's
   * transaction) and only for committed state: cleared whenever a group does
   * not commit on the fast path.
   */
  private readonly heads = new Map<string, StreamHead | null>();
  /** PRAGMA data_version when `heads` was last known valid; undefined when it is not. */
  private headsVersion: number | undefined;
  /** The next leaf's index as this connection last committed it; valid and forgotten with `heads`. */
  private nextLeaf: number | undefined;
  /** Leaves entered and not yet stored, flat (`[leafIndex, position, leaf, ...]`): stored together before the commit. */
  private readonly leaves: unknown[] = [];
  private readonly counters = { appends: 0, transactions: 0, slowPathGroups: 0 };
  /** Where the fast pass stands on a stream: its tracked head. */
  private readonly trackedRevision = (streamId: string) => revisionAt(this.trackedHead(streamId));
  /** Where the slow pass stands on a stream: the transaction's head, read each time. */
  private readonly currentRevision = (streamId: string) => revisionAt(this.readHead(streamId));
  private readonly recent: RecentEvents;
  private readonly readSubscriptionPage = (after: number) => this.readAllNow(after, PAGE_SIZE);
  private readonly flushNow = () => {
    this.flushScheduled = false;
    if (this.queue.length === 0) return;
    this.flushGroup();
    if (this.queue.length > 0) this.scheduleFlush();
  };

  constructor(filePath: string, options: SqliteEventStoreOptions = {}) {
    this.clock = options.clock ?? systemClock();
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.recent = new RecentEvents(PAGE_SIZE, this.pollIntervalMs);
    this.db = new Database(filePath, { fileMustExist: options.fileMustExist ?? false });
    // Before WAL mode creates the -wal and -shm files: SQLite gives them the database file's mode.
    restrictToOwner(filePath, `${filePath}-wal`, `${filePath}-shm`);
    openDatabase(this.db, options.busyTimeoutMs);
    this.statements = prepareStatements(this.db);
    this.commits = new BroadcastChannel(`ledger-sqlite-commits:${realpathSync(filePath)}`);
    this.commits.onmessage = () => this.wakeAll();
    // An open channel would keep the process alive.
    this.commits.unref();
    this.log = new SqliteLedgerLog(this.db);
    this.finishedMarks = new SqliteFinishedMarks(this.db);
    const fast = this.db.transaction((group: PendingAppend[]) => this.runFast(group));
    this.fastGroup = fast.immediate;
    // A transaction function called inside another becomes a savepoint.
    this.merkleTree = options.merkleTree ?? true;
    this.appendInSavepoint = this.db.transaction((pending: PendingAppend, head: StreamHead | null) => {
      const written = this.write(pending, head);
      this.storeLeaves();
      return written;
    });
    const slow = this.db.transaction((group: PendingAppend[]) => this.runSlow(group));
    this.slowGroup = slow.immediate;
    try {
      if (this.merkleTree) this.buildLog(options.logBuildBatch ?? DEFAULT_LOG_BUILD_BATCH, options.onLogBuild);
    } catch (error) {
      this.commits.close();
      this.db.close();
      throw error;
    }
  }

  append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) throw new Error('event store is closed');
      this.queue.push(serializeAppend(streamId, events, expectedRevision, options, resolve, reject));
      this.scheduleFlush();
    });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { maxCount } = options;
    let rows: unknown[];
    if (options.direction === 'backwards') {
      const from = options.fromRevision ?? Number.MAX_SAFE_INTEGER;
      rows = maxCount === undefined ? this.statements.readBackwards.all(streamId, from) : this.statements.readBackwardsAtMost.all(streamId, from, maxCount);
    } else {
      const from = options.fromRevision ?? 0;
      rows = maxCount === undefined ? this.statements.readForwards.all(streamId, from) : this.statements.readForwardsAtMost.all(streamId, from, maxCount);
    }
    return (rows as EventRow[]).map(toRecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllNow(options.after ?? 0, options.maxCount ?? NO_LIMIT);
  }

  async streamIds(prefix: string): Promise<string[]> {
    const { from, before } = streamPrefixRange(prefix);
    return this.statements.streamIds.all(from, before) as string[];
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<readonly RecordedEvent[]> {
    const { signal } = options;
    const stopped = () => this.closed || signal?.aborted === true;
    let after = options.after ?? 0;
    while (!stopped()) {
      const page = this.recent.pageAfter(after, this.readSubscriptionPage);
      if (page.events.length > 0) {
        yield page.events;
        after = page.events[page.events.length - 1].position;
        if (stopped()) return;
      }
      if (page.fromStore && page.events.length < PAGE_SIZE) await this.nextChange(signal);
    }
  }

  async headPosition(): Promise<number> {
    return (this.statements.head.get() as { head: number }).head;
  }

  /** Commits what is pending, ends every subscription, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.queue.length > 0) this.flushGroup();
    this.commits.close();
    this.wakeAll();
    this.db.close();
  }

  stats(): GroupCommitStats {
    return { ...this.counters, subscriptionReads: this.recent.reads };
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flushNow);
  }

  private flushGroup(): void {
    let group: PendingAppend[];
    if (this.queue.length <= MAX_GROUP) {
      group = this.queue;
      this.queue = [];
    } else {
      group = this.queue.splice(0, MAX_GROUP);
    }
    try {
      try {
        this.fastGroup(group);
      } catch (error) {
        // Whatever the fast pass put in `heads` and `leaves` was rolled back with it.
        this.forgetHeads();
        this.leaves.length = 0;
        if (error !== REDO_ON_SLOW_PATH) throw error;
        // Rolled back: nothing of the fast pass was kept, so start the outcomes afresh.
        resetOutcomes(group);
        this.counters.slowPathGroups += 1;
        this.slowGroup(group);
      }
    } catch (error) {
      // The group did not commit: nothing in it is durable, so every caller fails.
      this.forgetHeads();
      this.leaves.length = 0;
      for (const pending of group) pending.reject(error);
      return;
    }
    this.counters.transactions += 1;
    this.counters.appends += group.length;
    settleCommitted(group);
    this.wakeAll();
    this.commits.postMessage(null);
  }

  /**
   * The fast path, inside the group's transaction. Each stream's head, written
   * or expected, is read once (or taken from `heads` when no other connection
   * has committed since this one last did) and then updated in memory by each
   * append of the group, so appends in one group see each other.
   */
  private runFast(group: PendingAppend[]): void {
    const version = this.statements.dataVersion.get() as number;
    if (version !== this.headsVersion || this.heads.size > MAX_CACHED_HEADS) this.forgetHeads();
    this.headsVersion = version;
    if (this.merkleTree && this.nextLeaf === undefined) this.leafCountNow();
    for (const pending of group) {
      const head = this.trackedHead(pending.streamId);
      if (!this.accepts(pending, head, this.trackedRevision)) continue;
      try {
        this.heads.set(pending.streamId, this.write(pending, head));
      } catch {
        // Rows of this append may be in the transaction: roll back everything, redo with savepoints.
        throw REDO_ON_SLOW_PATH;
      }
    }
    this.storeLeaves();
  }

  /** Gives the event at `position` the next leaf index; stored with the others by `storeLeaves`. */
  private enter(position: number, leaf: Buffer): void {
    const leafIndex = this.nextLeaf as number;
    this.leaves.push(leafIndex, position, leaf);
    this.nextLeaf = leafIndex + 1;
  }

  /**
   * Stores the leaves entered, in the transaction that appends their events.
   * They are hashed into the tree later, by the log's integration: an append
   * pays for its leaves' bytes, not for their hashes (decision 0058).
   */
  private storeLeaves(): void {
    if (this.leaves.length === 0) return;
    this.log.storeLeaves(this.leaves);
    this.leaves.length = 0;
  }

  private trackedHead(streamId: string): StreamHead | null {
    let head = this.heads.get(streamId);
    if (head === undefined) {
      head = this.readHead(streamId);
      this.heads.set(streamId, head);
    }
    return head;
  }

  private forgetHeads(): void {
    this.heads.clear();
    this.headsVersion = undefined;
    this.nextLeaf = undefined;
  }

  /**
   * Sets `nextLeaf` as the file holds it, inside a write transaction, every
   * event without a leaf (a ledger written before the tree, or an event
   * another writer left out) given one first, so leaves keep the events' order.
   */
  private leafCountNow(): void {
    this.nextLeaf = this.log.leafCountNow();
    this.enterUnleaved(NO_LIMIT);
  }

  /** Enters up to `limit` events that have no leaf, in position order, after `nextLeaf`; returns how many. */
  private enterUnleaved(limit: number): number {
    const rows = this.statements.selectUnleaved.all(this.log.lastLeafPosition(), limit) as UnleavedRow[];
    for (const row of rows) {
      this.enter(row.position, leafOfColumns(this.leafPrefixes, row.stream_id, row.revision, row.event_id, row.type, row.recorded_at, row.hash));
    }
    this.storeLeaves();
    return rows.length;
  }

  /**
   * Builds the tree over a ledger written before it: gives its events their
   * leaves, in position order, and integrates them, a batch per transaction;
   * then integrates whatever an earlier build left. Resumable (a batch is
   * committed whole or not at all), and a no-op once done. Appends meanwhile
   * enter what is left before their own events (leafCountNow).
   */
  private buildLog(batchSize: number, onProgress: ((progress: LogBuildProgress) => void) | undefined): void {
    let remaining = this.statements.countUnleaved.get(this.log.lastLeafPosition()) as number;
    const batch = this.db.transaction(() => {
      this.nextLeaf = this.log.leafCountNow();
      const entered = this.enterUnleaved(batchSize);
      this.log.integrateInTransaction(batchSize);
      return entered;
    }).immediate;
    let entered = 0;
    for (let done = remaining === 0 ? 0 : batch(); done > 0; done = batch()) {
      entered += done;
      remaining = Math.max(0, remaining - done);
      onProgress?.({ entered, remaining });
    }
    this.nextLeaf = undefined;
    this.log.integrateNow();
  }

  /** The slow path: one savepoint per append, so a failing insert is undone alone. */
  private runSlow(group: PendingAppend[]): void {
    if (this.merkleTree) this.leafCountNow();
    for (const pending of group) {
      const head = this.readHead(pending.streamId);
      if (!this.accepts(pending, head, this.currentRevision)) continue;
      const before = this.nextLeaf;
      try {
        this.appendInSavepoint(pending, head);
      } catch (error) {
        // Some failures (disk full, I/O) make SQLite roll back the whole
        // transaction; then the group must fail rather than go on outside it.
        if (!this.db.inTransaction) throw error;
        this.nextLeaf = before;
        this.leaves.length = 0;
        pending.failed = true;
        pending.error = error;
      }
    }
  }

  /**
   * Whether the append is to be written after `head`, its expected streams
   * standing where `revisionOf` says (else it is settled: see `admits` and
   * `meetsExpectations`).
   */
  private accepts(pending: PendingAppend, head: StreamHead | null, revisionOf: (streamId: string) => number | 'no_stream'): boolean {
    const actual = revisionAt(head);
    if (!admits(pending, actual, this.findRetry(pending.streamId, pending.events, pending.expectedRevision, actual))) return false;
    return pending.expect === undefined || meetsExpectations(pending, pending.expect, revisionOf);
  }

  /** Inserts the append's events after `head`, each entered with its leaf; returns the stream's new head. */
  private write(pending: PendingAppend, head: StreamHead | null): StreamHead {
    const { streamId, events } = pending;
    const insert = this.statements.insertEvent;
    const created = this.clock.now();
    let previousHash = head === null ? null : head.hash;
    let revision = head === null ? 0 : head.revision + 1;
    let position = 0;
    const prefix = this.merkleTree ? this.leafPrefixes.of(streamId) : undefined;
    for (let i = 0; i < events.length; i += 1) {
      const { id, type, data, metadata, recordedAt } = events[i];
      const hash = hashEventText(previousHash, streamId, revision, id, type, data, metadata);
      try {
        const info = insert.run(id, streamId, revision, type, data, metadata, created, hash, previousHash);
        position = Number(info.lastInsertRowid);
        if (prefix !== undefined) this.enter(position, leafOfStream(prefix, revision, id, type, recordedAt, hash));
      } catch (error) {
        if (isUniqueViolation(error, 'events.event_id')) throw new DuplicateEventIdError(streamId, id);
        throw error;
      }
      previousHash = hash;
      revision += 1;
    }
    pending.result = { nextRevision: revision - 1, position };
    return { revision: revision - 1, hash: previousHash as string };
  }

  /** The stream's last revision and hash, from the events table's (stream_id, revision) index. */
  private readHead(streamId: string): StreamHead | null {
    const row = this.statements.selectHead.get(streamId) as StreamHead | undefined;
    return row === undefined ? null : row;
  }

  /**
   * An idempotent retry: the batch's ids are already the stream's events,
   * consecutively, from where the expected revision says the batch began
   * (anywhere in the stream for `any` and `stream_exists`). Returns the
   * original result, or undefined when this is not a retry.
   */
  private findRetry(
    streamId: string,
    events: SerializedEvent[],
    expectedRevision: ExpectedRevision,
    actual: number | 'no_stream',
  ): AppendResult | undefined {
    // A missing stream holds nothing to retry, and neither does one exactly where the writer expects it.
    if (actual === 'no_stream' || expectedRevision === actual) return undefined;
    const first = this.statements.selectEventById.get(events[0].id) as { stream_id: string; revision: number } | undefined;
    if (first === undefined || first.stream_id !== streamId) return undefined;
    const start = firstRevisionOf(expectedRevision) ?? first.revision;
    if (first.revision !== start) return undefined;
    const recorded = this.statements.readForwardsAtMost.all(streamId, start, events.length) as EventRow[];
    if (!isSameBatch(recorded.map((row) => row.event_id), events)) return undefined;
    const last = recorded[recorded.length - 1];
    return { nextRevision: last.revision, position: last.position };
  }

  private readAllNow(after: number, limit: number): RecordedEvent[] {
    return (this.statements.readAll.all(after, limit) as EventRow[]).map(toRecordedEvent);
  }

  /** Resolves on the next in-process commit, the next poll, an abort or close, whichever comes first. */
  private nextChange(signal: AbortSignal | undefined): Promise<void> {
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
    this.recent.changed();
    for (const wake of [...this.waiters]) wake();
  }
}

function prepareStatements(db: Database.Database) {
  const columns = 'position, event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash';
  return {
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    selectHead: db.prepare(
      'SELECT revision, hash FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
    ),
    selectEventById: db.prepare('SELECT stream_id, revision FROM events WHERE event_id = ?'),
    insertEvent: db.prepare(
      `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // recordedAt read by SQLite's JSON functions: parsing each event's metadata in JavaScript would cost a build more.
    selectUnleaved: db.prepare(
      `SELECT position, event_id, stream_id, revision, type, json_extract(metadata, '$.recordedAt') AS recorded_at, hash
       FROM events WHERE position > ? ORDER BY position LIMIT ?`,
    ),
    countUnleaved: db.prepare('SELECT COUNT(*) FROM events WHERE position > ?').pluck(),
    // Whole-stream reads (every command's) get statements without a LIMIT: a bound LIMIT makes
    // SQLite's lookup of a short stream about twice as slow (decision 0037).
    readForwards: db.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC`),
    readForwardsAtMost: db.prepare(
      `SELECT ${columns} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
    ),
    readBackwards: db.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC`),
    readBackwardsAtMost: db.prepare(
      `SELECT ${columns} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
    ),
    readAll: db.prepare(`SELECT ${columns} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`),
    streamIds: db.prepare(STREAM_IDS_QUERY).pluck(),
    head: db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
  };
}

function isUniqueViolation(error: unknown, column: string): boolean {
  const sqliteError = error as { code?: string; message?: string };
  return sqliteError.code === 'SQLITE_CONSTRAINT_UNIQUE' && sqliteError.message?.includes(column) === true;
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    created: row.created,
    integrity: { hash: row.hash, previousHash: row.previous_hash },
  };
}
