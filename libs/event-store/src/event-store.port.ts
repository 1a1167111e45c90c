/**
 * The event store port, modelled on EventStoreDB so that the embedded SQLite
 * adapter and the EventStoreDB adapter behave alike (one contract suite runs
 * against both).
 *
 * Revisions are 0-based per stream. Positions are global, strictly increasing
 * in commit order, and always greater than zero; `0` means "before the first
 * event" and is what a new subscription or checkpoint starts from.
 */

/** Where a stream must be for an append to be accepted. */
export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | number;

/** Metadata carried by every event (docs/architecture.md, "The event store port"). */
export interface EventMetadata {
  tenantId?: string;
  correlationId: string;
  causationId?: string;
  /** The API key id (or `cli:<user>`) that caused the fact. */
  actor?: string;
  /** The service clock when the fact was recorded (epoch ms). */
  recordedAt: number;
  schemaVersion: number;
  idempotencyKey?: string;
  requestHash?: string;
}

export interface NewEvent<TData = unknown> {
  /** A uuid chosen by the writer: the same id retried is the same event. */
  id: string;
  type: string;
  data: TData;
  metadata: EventMetadata;
}

/** The integrity chain link computed by the store at append time. */
export interface IntegrityLink {
  /** SHA-256 (hex) of this event's stored content chained to `previousHash` (envelope: integrity.ts). */
  hash: string;
  /** The hash of the previous event in the same stream, or null for revision 0. */
  previousHash: string | null;
}

export interface RecordedEvent<TData = unknown> extends NewEvent<TData> {
  streamId: string;
  revision: number;
  position: number;
  /** When the store committed the event (epoch ms). */
  created: number;
  integrity: IntegrityLink;
}

/** A stream a decision read, and the revision it read it at. */
export interface StreamExpectation {
  streamId: string;
  expectedRevision: ExpectedRevision;
}

export interface AppendOptions {
  /**
   * Other streams the decision behind this append read. The append commits only if each still stands where
   * `expectedRevision` says when it commits (checked in the same transaction as the append); otherwise it throws
   * WrongExpectedVersionError naming the first stream that moved, and nothing is written. Nothing is written to them.
   */
  expect?: readonly StreamExpectation[];
}

export interface AppendResult {
  /** The revision of the last event now in the stream. */
  nextRevision: number;
  /** The global position of the last appended event. */
  position: number;
}

export interface ReadStreamOptions {
  /** First revision to return (forwards) or the highest (backwards). */
  fromRevision?: number;
  direction?: 'forwards' | 'backwards';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Return events strictly after this position; 0 (default) reads from the start. */
  after?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position; 0 (default) from the start. */
  after?: number;
  /** Ends the subscription: the iterator finishes after the current page. */
  signal?: AbortSignal;
}

export interface EventStore {
  /**
   * Appends events atomically to one stream. Throws WrongExpectedVersionError
   * when the stream is not where `expectedRevision` says. Retrying the same
   * event ids at the same expected revision returns the original result.
   *
   * Guarded append (`options.expect`): the decision behind the events read
   * other streams, and is recorded only if none of them moved since, so that
   * no decision made on a stale read is recorded; the caller re-reads and
   * decides again. In order:
   * - The written stream is judged first. A retry of an append already
   *   recorded returns its original result whatever the expected streams
   *   say now (they may have moved since it committed); a mismatch of the
   *   written stream's own revision names the written stream.
   * - Then each expectation, in the order given, by the same rules as
   *   `expectedRevision` (`'any'` always holds); the first that does not
   *   hold is thrown as WrongExpectedVersionError naming that stream, with
   *   its actual revision, and nothing is written.
   * - The expected streams are read where the append is judged: an
   *   expectation sees appends committed before it, in any process, and
   *   appends earlier in the same group commit. A refused append never
   *   fails the others of its group.
   * - An expectation on the written stream itself, or on an empty stream
   *   id, is a caller's mistake (its own `expectedRevision` says where the
   *   written stream must be): the append rejects with a TypeError and
   *   nothing is queued.
   * The SQLite and PostgreSQL adapters check expectations atomically with
   * the append; the EventStoreDB adapter reads them just before it (see
   * there, and decision 0052).
   */
  append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;

  /** The events of one stream; an empty array when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  /** Events of every stream in global order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  /**
   * The id of every stream that begins with `prefix` (printable ASCII, see
   * streamPrefixRange), each once, in byte order: how the kinds of stream
   * that have no read model (tenants, API keys, a tenant's configuration
   * templates) are listed. The SQLite and PostgreSQL adapters answer from
   * their index of stream ids, at a cost that grows with the streams listed,
   * not with the ledger (decision 0092).
   */
  streamIds(prefix: string): Promise<string[]>;

  /**
   * Catch-up from `after`, then live, until `signal` aborts: every event once,
   * in global order, handed out a page at a time (each page the events the
   * store had ready, at least one; pages may be shared between subscribers,
   * so they must not be changed). Pages rather than single events because a
   * follower pays for each step of an async iterator (its promises, the
   * request context carried through them) and several follow the store in
   * every API process: stepped event by event, that cost was paid once per
   * event per follower (decision 0037).
   */
  subscribeToAll(options?: SubscribeOptions): AsyncIterable<readonly RecordedEvent[]>;

  /** The position of the last committed event, 0 when the store is empty. */
  headPosition(): Promise<number>;

  /**
   * The ledger's Merkle tree and its checkpoints (decision 0058), kept by the
   * stores that enter each event in it in the transaction that appends it
   * (SQLite, PostgreSQL); undefined for the EventStoreDB adapter.
   */
  readonly log?: LedgerLog;

  /** How far each follower that hands work to Redis has seen that work finished (decision 0080). */
  readonly finishedMarks: FinishedMarks;

  close(): Promise<void>;
}

/**
 * A follower that turns events into jobs in Redis (an event dispatcher)
 * keeps here the position through which every job it asked for has
 * finished: beside the events, because Redis can lose the queues and the
 * follower's own checkpoint with them, and a follower that lost them
 * resumes from its mark (decision 0080). A mark only moves forward.
 */
export interface FinishedMarks {
  /** The position through which every job `follower` asked for has finished; 0 when it saved none. */
  of(follower: string): Promise<number>;
  /** Moves `follower`'s mark to `position`, unless it is there or past it already. */
  advance(follower: string, position: number): Promise<void>;
}

/** An event's leaf in the ledger's Merkle tree. */
export interface LogLeaf {
  leafIndex: number;
  eventId: string;
  /** The stored leaf bytes (ledger-leaf.ts), which the leaf hash covers. */
  leaf: Buffer;
}

/** A checkpoint the ledger issued: the signed note, and what it states. */
export interface StoredCheckpoint {
  size: number;
  root: Buffer;
  /** The C2SP signed note as issued (the log's signature only). */
  note: string;
  /** The service clock when it was issued (epoch ms). */
  issuedAt: number;
}

/** A witness's cosignature of the checkpoint of one tree size. */
export interface StoredCosignature {
  size: number;
  /** The witness's verifier key. */
  witness: string;
  /** The cosignature line, as appended to the checkpoint note. */
  line: string;
  /** The time the witness signed (seconds since the epoch, from the cosignature). */
  cosignedAt: number;
}

/**
 * The Merkle tree over every event (RFC 6962), in the order events were
 * committed, and the checkpoints issued over it. Leaves are stored by the
 * store with their events, never here, and hashed into the tree afterwards
 * by `integrate` (decision 0058); checkpoints and cosignatures are kept
 * append-only, the first one of a tree size standing.
 */
export interface LedgerLog {
  /** The tree's size: the leaves integrated into it, every hash a proof over it needs kept. */
  size(): Promise<number>;
  /**
   * Integrates every leaf stored since the last integration (in batches, each
   * committed whole) and returns the tree's size after it: every committed
   * event's leaf, when no append runs meanwhile. Safe to call from several
   * processes at once.
   */
  integrate(): Promise<number>;
  /** The hashes of complete subtrees within the tree (RFC 6962 MTH of each). */
  subtreeHashes(subtrees: readonly { level: number; index: number }[]): Promise<Buffer[]>;
  /** The leaves [start, end) that exist, in leaf order. */
  leaves(start: number, end: number): Promise<LogLeaf[]>;
  /** The leaves of the events with these ids that exist, in leaf order, each with its event's tenant (metadata.tenantId). */
  leavesOf(eventIds: readonly string[]): Promise<Array<LogLeaf & { tenantId: string | null }>>;
  /** Keeps a checkpoint; false when one of that size was kept already (that one stands). */
  addCheckpoint(checkpoint: StoredCheckpoint): Promise<boolean>;
  /** The checkpoint of the largest tree size kept. */
  latestCheckpoint(): Promise<StoredCheckpoint | undefined>;
  /** Every checkpoint kept, by tree size. */
  checkpoints(): Promise<StoredCheckpoint[]>;
  /** Keeps a witness's cosignature; the first one of a size and witness stands. */
  addCosignature(cosignature: StoredCosignature): Promise<void>;
  /** The cosignatures of the checkpoint of a tree size. */
  cosignatures(size: number): Promise<StoredCosignature[]>;
  /** The largest tree size a witness cosigned, 0 when none. */
  lastCosignedSize(witness: string): Promise<number>;
}

/** A stream is not at the revision an append expected. */
export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's current revision, or 'no_stream' when it does not exist. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/**
 * An append reuses an event id that the store already holds somewhere other
 * than the exact place an idempotent retry would find it.
 */
export class DuplicateEventIdError extends Error {
  constructor(
    readonly streamId: string,
    readonly eventId: string,
  ) {
    super(`stream ${streamId}: event id ${eventId} is already recorded elsewhere`);
    this.name = 'DuplicateEventIdError';
  }
}

/** Dependency-injection token for the EventStore port. */
export const EVENT_STORE = Symbol('EVENT_STORE');
