import { AppendResult, ExpectedRevision, NewEvent, WrongExpectedVersionError } from './event-store.port';
import { satisfies } from './expected-revision';
import { storedJson } from './integrity';
import { assertAppendable } from './new-events';

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
}

/** One queued append; the group's pass writes its outcome here, callers learn it after the commit. */
export interface PendingAppend {
  streamId: string;
  events: SerializedEvent[];
  expectedRevision: ExpectedRevision;
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

/**
 * Validates and serializes an append for the queue, so that the group's
 * transaction, which holds the store's write lock, does little more than the
 * database's own work. Throws what `assertAppendable` throws.
 */
export function serializeAppend(
  streamId: string,
  events: NewEvent[],
  expectedRevision: ExpectedRevision,
  resolve: (result: AppendResult) => void,
  reject: (error: unknown) => void,
): PendingAppend {
  assertAppendable(streamId, events);
  const serialized = new Array<SerializedEvent>(events.length);
  for (let i = 0; i < events.length; i += 1) {
    const { id, type, data, metadata } = events[i];
    serialized[i] = { id, type, data: storedJson(data), metadata: storedJson(metadata) };
  }
  return { streamId, events: serialized, expectedRevision, resolve, reject, result: undefined, failed: false, error: undefined };
}

/**
 * Whether the append is to be written after a stream whose last revision is
 * `actual`. If not, it is settled here without writing anything: an
 * idempotent retry (`retried`, looked up by the adapter only when the
 * expectation is not met exactly) gets its original result, a mismatching
 * expected revision a WrongExpectedVersionError.
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
