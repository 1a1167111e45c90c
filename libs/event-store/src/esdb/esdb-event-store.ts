import {
  AllStreamResolvedEvent,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  JSONType,
  NO_STREAM,
  Position,
  ResolvedEvent,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@eventstore/db-client';
import {
  AppendOptions,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  FinishedMarks,
  IntegrityLink,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamExpectation,
  SubscribeOptions,
  WrongExpectedVersionError,
} from '../event-store.port';
import { firstRevisionOf, isSameBatch, satisfies } from '../expected-revision';
import { computeEventHash } from '../integrity';
import { assertAppendable, expectationsOf } from '../new-events';
import { streamPrefixRange } from '../stream-prefix';

/**
 * The EventStore port over EventStoreDB / KurrentDB (gRPC client 6.x,
 * server 22.6 or later, which reports $all positions on stream reads).
 *
 * Positions. EventStoreDB places an event by a (commit, prepare) pair of byte
 * offsets in its transaction log. Every append over gRPC is an implicit
 * transaction: each event is its own prepare record, and a $all read reports
 * it with commit = prepare = that record's offset (the server's AllReader
 * builds `CommitEventRecord(event, prepare.LogPosition)`), so the commit
 * position alone is strictly increasing per event and is the port's
 * `position`. An append's result carries the last event's position. Limits:
 * events written through the legacy TCP API's explicit transactions share
 * the commit record's position and are not supported; offsets stay exact as
 * a JavaScript number up to 2^53 bytes (8 PiB) of log.
 *
 * Integrity. EventStoreDB has no column for the chain, so the link travels
 * in the event's metadata under the reserved key `$integrity` and is moved
 * back into `RecordedEvent.integrity` on read. The hash covers data and
 * metadata as JSON.stringify writes them (integrity.ts), which is the JSON
 * the client sends, so a reader re-serialising what it reads gets the same
 * text; `$integrity` is added last and removed on read, so the caller's
 * metadata keeps its member order. To chain, an append reads the
 * stream's last event first; when the caller expects `any` or
 * `stream_exists`, the append is sent with the exact revision it read and
 * retried if another writer got there first.
 *
 * Event ids. EventStoreDB recognises a repeated id only where an idempotent
 * retry would put it; unlike the SQLite store it does not refuse an id
 * already used in another stream.
 *
 * Guarded appends (`AppendOptions.expect`) are NOT atomic here. This client
 * (6.x) can make an append conditional on the written stream only, so each
 * expected stream's last revision is read just before the append is sent:
 * another writer can move an expected stream in the window between that
 * read and the append (one round trip), and the append is then recorded on
 * a stale read. PostgreSQL is the engine for several machines that checks
 * expectations under its append lock (decision 0052). KurrentDB 25.1's
 * multi-stream append couples each expected state to a stream written;
 * checks of streams not written ("consistency checks" of `appendRecords`)
 * came with KurrentDB 26.1 and the `@kurrent/kurrentdb-client` package,
 * which is how this adapter would check them atomically.
 */
const INTEGRITY_KEY = '$integrity';
const MAX_RACE_RETRIES = 10;
/** Above this the server means "no position" (e.g. u64::MAX on stream reads of older servers). */
const MAX_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

type StoredMetadata = EventMetadata & { [INTEGRITY_KEY]: IntegrityLink };

interface StreamTip {
  revision: number;
  hash: string;
}

export class EsdbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly liveSubscriptions = new Set<{ unsubscribe(): Promise<void> }>();
  readonly finishedMarks: FinishedMarks;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.finishedMarks = new EsdbFinishedMarks(this.client);
  }

  async append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult> {
    assertAppendable(streamId, events);
    const expect = expectationsOf(streamId, options);
    for (let attempt = 0; ; attempt += 1) {
      const tip = await this.readTip(streamId);
      const actual = tip?.revision ?? 'no_stream';
      const retried = await this.findRetry(streamId, events, expectedRevision, actual);
      if (retried !== undefined) return retried;
      if (!satisfies(expectedRevision, actual)) throw new WrongExpectedVersionError(streamId, expectedRevision, actual);
      if (expect !== undefined) await this.assertExpectations(expect);
      try {
        return await this.appendAt(streamId, events, tip);
      } catch (error) {
        if (!(error instanceof EsdbWrongExpectedVersionError)) throw error;
        // Another writer appended since the tip was read: the caller's own
        // expectation decides whether that is a conflict or a reason to re-read.
        const loose = expectedRevision === 'any' || expectedRevision === 'stream_exists';
        if (!loose || attempt >= MAX_RACE_RETRIES) {
          throw new WrongExpectedVersionError(streamId, expectedRevision, fromCurrentRevision(error.actualVersion));
        }
      }
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision);
    const read = this.client.readStream(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: from,
      ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
    });
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        if (resolved.event) events.push(toRecordedEvent(resolved));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? 0;
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    const events: RecordedEvent[] = [];
    if (maxCount <= 0) return events;
    // A read from a position includes the event there, and system events
    // count towards a server-side maxCount, so the count is applied here.
    const read = this.client.readAll({ direction: FORWARDS, fromPosition: toReadPosition(after) });
    try {
      for await (const resolved of read) {
        if (!isUserEvent(resolved)) continue;
        const event = toRecordedEvent(resolved);
        if (event.position <= after) continue;
        events.push(event);
        if (events.length >= maxCount) break;
      }
    } finally {
      await read.cancel();
    }
    return events;
  }

  /**
   * EventStoreDB keeps no index of stream ids a client can range over: this
   * reads $all and keeps the ids with the prefix, a cost that grows with the
   * ledger. Its `$streams` system stream would list them, but needs the
   * server's system projections, which this adapter has never run against.
   */
  async streamIds(prefix: string): Promise<string[]> {
    streamPrefixRange(prefix);
    const found = new Set<string>();
    const read = this.client.readAll({ direction: FORWARDS, fromPosition: START });
    try {
      for await (const resolved of read) {
        if (!isUserEvent(resolved)) continue;
        const { streamId } = resolved.event!;
        if (streamId.startsWith(prefix)) found.add(streamId);
      }
    } finally {
      await read.cancel();
    }
    return [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  // The client hands events over one at a time, and so does this adapter: pages of one event.
  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<readonly RecordedEvent[]> {
    const { signal } = options;
    const after = options.after ?? 0;
    if (signal?.aborted) return;
    const subscription = this.client.subscribeToAll({
      fromPosition: toReadPosition(after),
      filter: excludeSystemEvents(),
    });
    const stop = () => void subscription.unsubscribe();
    signal?.addEventListener('abort', stop, { once: true });
    this.liveSubscriptions.add(subscription);
    try {
      for await (const resolved of subscription) {
        if (!isUserEvent(resolved)) continue;
        const event = toRecordedEvent(resolved);
        if (event.position <= after) continue;
        yield [event];
        if (signal?.aborted) return;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      this.liveSubscriptions.delete(subscription);
      await subscription.unsubscribe();
    }
  }

  /** The last event that is not a system event; system events are never delivered, so never waited for. */
  async headPosition(): Promise<number> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END });
    try {
      for await (const resolved of read) {
        if (isUserEvent(resolved)) return toRecordedEvent(resolved).position;
      }
    } finally {
      await read.cancel();
    }
    return 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.liveSubscriptions].map((s) => s.unsubscribe()));
    await this.client.dispose();
  }

  private async appendAt(streamId: string, events: NewEvent[], tip: StreamTip | undefined): Promise<AppendResult> {
    let previousHash = tip?.hash ?? null;
    let revision = tip === undefined ? 0 : tip.revision + 1;
    const stored = events.map((event) => {
      const hash = computeEventHash(previousHash, { streamId, revision, ...event });
      const metadata: StoredMetadata = { ...event.metadata, [INTEGRITY_KEY]: { hash, previousHash } };
      previousHash = hash;
      revision += 1;
      return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata });
    });
    const result = await this.client.appendToStream(streamId, stored, {
      expectedRevision: tip === undefined ? 'no_stream' : BigInt(tip.revision),
    });
    return { nextRevision: Number(result.nextExpectedRevision), position: toPosition(result.position) };
  }

  /** Mirrors the SQLite store: the same ids already recorded where this batch would have begun. */
  private async findRetry(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
    actual: number | 'no_stream',
  ): Promise<AppendResult | undefined> {
    if (actual === 'no_stream' || expectedRevision === actual) return undefined;
    const start = firstRevisionOf(expectedRevision);
    // Without a revision to look at, only a retry of the stream's latest append can be recognised.
    const recorded =
      start === undefined
        ? (await this.readStream(streamId, { direction: 'backwards', maxCount: events.length })).reverse()
        : await this.readStream(streamId, { fromRevision: start, maxCount: events.length });
    if (!isSameBatch(recorded.map((event) => event.id), events)) return undefined;
    const last = recorded[recorded.length - 1];
    return { nextRevision: last.revision, position: last.position };
  }

  /**
   * Throws WrongExpectedVersionError for the first expected stream that is
   * not where the caller read it. Read just before the append, not with it
   * (see the class comment); all at once, so that the window is one round
   * trip however many streams are expected.
   */
  private async assertExpectations(expect: readonly StreamExpectation[]): Promise<void> {
    const tips = await Promise.all(expect.map(({ streamId }) => this.readTip(streamId)));
    expect.forEach(({ streamId, expectedRevision }, i) => {
      const actual = tips[i]?.revision ?? 'no_stream';
      if (!satisfies(expectedRevision, actual)) throw new WrongExpectedVersionError(streamId, expectedRevision, actual);
    });
  }

  private async readTip(streamId: string): Promise<StreamTip | undefined> {
    const [last] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    return last === undefined ? undefined : { revision: last.revision, hash: last.integrity.hash };
  }
}

function isUserEvent(resolved: AllStreamResolvedEvent): boolean {
  const event = resolved.event;
  return event !== undefined && !event.type.startsWith('$') && !event.streamId.startsWith('$');
}

function toReadPosition(after: number): Position | typeof START {
  return after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
}

function toPosition(position: Position | undefined): number {
  if (position === undefined || position.commit > MAX_POSITION) {
    throw new Error('EventStoreDB did not report a log position; server 22.6 or later is required');
  }
  return Number(position.commit);
}

function fromCurrentRevision(current: bigint | 'no_stream'): number | 'no_stream' {
  return current === 'no_stream' ? current : Number(current);
}

function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent {
  const event = resolved.event;
  if (event === undefined || !event.isJson) throw new Error('EventStoreDB returned an event that is not JSON');
  const { [INTEGRITY_KEY]: integrity, ...metadata } = event.metadata as unknown as StoredMetadata;
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: toPosition(event.position),
    created: event.created.getTime(),
    integrity,
  };
}

/** The stream whose metadata holds the dispatchers' finished marks: metadata events are system events, which no read of the ledger returns. */
const FINISHED_MARKS_STREAM = 'ledger-finished-marks';

/** The dispatchers' finished marks, as custom metadata of one stream (decision 0080). */
class EsdbFinishedMarks implements FinishedMarks {
  constructor(private readonly client: EventStoreDBClient) {}

  async of(follower: string): Promise<number> {
    const { metadata } = await this.client.getStreamMetadata(FINISHED_MARKS_STREAM);
    return Number(metadata?.[follower] ?? 0);
  }

  async advance(follower: string, position: number): Promise<void> {
    for (;;) {
      const { metadata, metastreamRevision } = await this.client.getStreamMetadata(FINISHED_MARKS_STREAM);
      if (Number(metadata?.[follower] ?? 0) >= position) return;
      try {
        await this.client.setStreamMetadata(FINISHED_MARKS_STREAM, { ...metadata, [follower]: position }, { expectedRevision: metastreamRevision ?? NO_STREAM });
        return;
      } catch (error) {
        // Another process moved a mark in between: read again.
        if (!(error instanceof EsdbWrongExpectedVersionError)) throw error;
      }
    }
  }
}
