import { AppendOptions, AppendResult, ExpectedRevision, NewEvent, StreamExpectation, WrongExpectedVersionError } from './event-store.port';
import { satisfies } from './expected-revision';
import { storedJson } from './integrity';
import { leafRecordedAt } from './ledger-leaf';
import { assertAppendable, expectationsOf } from './new-events';

/**
 * The queued append of the group-committing adapters (SQLite, PostgreSQL):
 * serialized once when the caller appends, judged against its stream's head
 * inside the group's transaction, settled after the commit.
 */

/** A group-committing store's counters since it was opened; `transactions < appends` shows commits being grouped. */
export interface GroupCommitStats {
  appends: number;
  /** Committed group transactions. */
  transactions: number;
  /** Groups redone on the slow path (a savepoint per append) after an insert failed on the fast path. */
  slowPathGroups: number;
  /** Pages the subscriptions read from the store; the other pages they were served had been read for another subscription. */
  subscriptionReads: number;
}

/** An event as it will be stored: data and metadata already serialized, the exact text that is hashed. */
export interface SerializedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
  /** The metadata's recordedAt, which the event's leaf in the ledger's tree states. */
  recordedAt: number;
}

/** One queued append; the group's pass writes its outcome here, callers learn it after the commit. */
export interface PendingAppend {
  streamId: string;
  events: SerializedEvent[];
  expectedRevision: ExpectedRevision;
  /** The other streams the append's decision read (`AppendOptions.expect`); undefined for an unguarded append. */
  expect: StreamExpectation[] | undefined;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
  result: AppendResult | undefined;
  /** Set with `error` when the append is refused. */
  failed: boolean;
  error: unknown;
}

/** Where a stream ends; null for a stream that does not exist. */
export interface StreamHead {
  revision: number;
  hash: string;
}

/** The stream's last revision as an expected revision is judged against. */
export function revisionAt(head: StreamHead | null): number | 'no_stream' {
  return head === null ? 'no_stream' : head.revision;
}

/**
 * Validates and serializes an append for the queue, so that the group's
 * transaction, which holds the store's write lock, does little more than the
 * database's own work. Throws what `assertAppendable` and `expectationsOf`
 * throw.
 */
export function serializeAppend(
  streamId: string,
  events: NewEvent[],
  expectedRevision: ExpectedRevision,
  options: AppendOptions | undefined,
  resolve: (result: AppendResult) => void,
  reject: (error: unknown) => void,
): PendingAppend {
  assertAppendable(streamId, events);
  const expect = expectationsOf(streamId, options);
  const serialized = new Array<SerializedEvent>(events.length);
  for (let i = 0; i < events.length; i += 1) {
    const { id, type, data, metadata } = events[i];
    serialized[i] = { id, type, data: storedJson(data), metadata: storedJson(metadata), recordedAt: leafRecordedAt(metadata.recordedAt) };
  }
  return { streamId, events: serialized, expectedRevision, expect, resolve, reject, result: undefined, failed: false, error: undefined };
}

/**
 * Whether the append is to be written after a stream whose last revision is
 * `actual`. If not, it is settled here without writing anything: an
 * idempotent retry (`retried`, looked up by the adapter only when the
 * expectation is not met exactly) gets its original result, a mismatching
 * expected revision a WrongExpectedVersionError. A guarded append it admits
 * is then judged by `meetsExpectations`: a retry is answered before its
 * expected streams are looked at, as the port promises.
 */
export function admits(pending: PendingAppend, actual: number | 'no_stream', retried: AppendResult | undefined): boolean {
  const { streamId, expectedRevision } = pending;
  if (expectedRevision === actual) return true;
  if (retried !== undefined) {
    pending.result = retried;
    return false;
  }
  if (satisfies(expectedRevision, actual)) return true;
  pending.failed = true;
  pending.error = new WrongExpectedVersionError(streamId, expectedRevision, actual);
  return false;
}

/**
 * Whether every other stream the guarded append's decision read still
 * stands where the decision read it. `revisionOf` is where the group's pass
 * stands: heads read in its transaction, under the store's write lock, and
 * moved by the appends it has judged before this one, so that an append
 * earlier in the group moving an expected stream refuses this one. If not,
 * the append is settled here with a WrongExpectedVersionError naming the
 * first stream that moved, and nothing of it is written.
 */
export function meetsExpectations(
  pending: PendingAppend,
  expect: readonly StreamExpectation[],
  revisionOf: (streamId: string) => number | 'no_stream',
): boolean {
  for (const { streamId, expectedRevision } of expect) {
    const actual = revisionOf(streamId);
    if (satisfies(expectedRevision, actual)) continue;
    pending.failed = true;
    pending.error = new WrongExpectedVersionError(streamId, expectedRevision, actual);
    return false;
  }
  return true;
}

/** Forgets a pass's outcomes when its transaction was rolled back and the group is redone. */
export function resetOutcomes(group: PendingAppend[]): void {
  for (const pending of group) {
    pending.result = undefined;
    pending.failed = false;
    pending.error = undefined;
  }
}

/** Tells every caller of a committed group its outcome. */
export function settleCommitted(group: PendingAppend[]): void {
  for (const pending of group) {
    if (pending.failed) pending.reject(pending.error);
    else pending.resolve(pending.result as AppendResult);
  }
}
