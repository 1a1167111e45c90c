import { EventStore, ExpectedRevision, RecordedEvent, StreamExpectation, WrongExpectedVersionError } from '@ledger/event-store';
import { conflict } from '@ledger/platform';
import { AggregateCache, loadAggregate } from './load-aggregate';
import { CommandContext, toNewEvent } from './command-context';

/**
 * The streams one decision read, each at the revision it read it. Every
 * stream read through here guards the decision's append: it is recorded
 * only if none of them moved since (decision 0055).
 */
export class CommandReads {
  private readonly revisions = new Map<string, ExpectedRevision>();

  /** `alreadyRead`: whole streams the request read just before, which `events` answers as read then (CommandOptions.alreadyRead). */
  constructor(
    private readonly store: EventStore,
    private readonly alreadyRead: ReadonlyMap<string, RecordedEvent[]> = new Map(),
  ) {}

  /** Every event of the stream, in order. */
  async events(streamId: string): Promise<RecordedEvent[]> {
    const recorded = this.alreadyRead.get(streamId) ?? (await this.store.readStream(streamId));
    this.read(streamId, recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision);
    return recorded;
  }

  /** The stream folded into its state; with a cache, only the events recorded since the cached revision are read and folded. */
  async fold<S, E extends { type: string; data: unknown }>(streamId: string, evolve: (state: S | null, event: E) => S | null, cache?: AggregateCache<S>): Promise<S | null> {
    const { state, expectedRevision } = await loadAggregate(this.store, streamId, evolve, cache);
    this.read(streamId, expectedRevision);
    return state;
  }

  /** Where the stream stood when the decision first read it; undefined for a stream it did not read. */
  revisionOf(streamId: string): ExpectedRevision | undefined {
    return this.revisions.get(streamId);
  }

  /** Every stream read but `streamId`, where it stood: what an append to `streamId` must find unchanged. */
  othersThan(streamId: string): StreamExpectation[] {
    return [...this.revisions].filter(([id]) => id !== streamId).map(([id, expectedRevision]) => ({ streamId: id, expectedRevision }));
  }

  private read(streamId: string, revision: ExpectedRevision): void {
    // A stream read twice keeps its first revision: the decision rests on what it read first, and a move in between fails the append.
    if (!this.revisions.has(streamId)) this.revisions.set(streamId, revision);
  }
}

/** A fact to record: a domain event, with the id it is to be stored under when the decision fixes one. */
export interface FactToRecord {
  type: string;
  data: unknown;
  id?: string;
}

/**
 * What a decision comes to: facts to append to one stream it read, with the
 * answer they make; or an answer with nothing to record (a repeat of a
 * request already recorded, a decision already taken), with the position of
 * the facts it answers from when the caller must wait for them.
 */
export type Decision<R> =
  | { record: { streamId: string; facts: readonly FactToRecord[] }; answer: R }
  | { record?: undefined; answer: R; position: number | null };

export interface CommandResult<R> {
  result: R;
  /** The position of the last fact recorded, or of the facts answered from; null when there are none to wait for. */
  position: number | null;
}

/** How many times a decision is taken in all when concurrent requests keep moving what it read. */
export const COMMAND_ATTEMPTS = 5;

export interface CommandOptions {
  /**
   * How many times the decision is taken in all; COMMAND_ATTEMPTS unless
   * given. More only on a stream that every command of its kind appends to,
   * where each lost race is another command's progress, so a command waits
   * behind at most as many as run at once (a template's versions, the
   * keyring).
   */
  attempts?: number;
  /**
   * Whole streams the request read just before the command (a check that
   * had to come first, or a read made beside another): the first attempt
   * takes them as its reads instead of reading them again. The append is
   * guarded on them as on any read, so a stream that moved since makes the
   * decision be taken again, on a fresh read.
   */
  alreadyRead?: ReadonlyMap<string, RecordedEvent[]>;
}

/** The one conflict code of a command that could not be recorded because concurrent requests kept changing what it read. */
export const CONCURRENT_CHANGE = 'concurrent_change';

/**
 * The one command path (decision 0055): read what the decision needs, decide
 * (pure), append at the revisions read. The append is accepted only if every
 * stream the decision read is still where it was, checked by the store in
 * the same transaction as the append; otherwise nothing is written and the
 * decision is taken again on the new facts, a bounded number of times. So no
 * rule is ever checked against a stale read, whatever streams it reads, and
 * a command that keeps losing the race is refused with one code, 409
 * `concurrent_change`, for the caller to retry.
 *
 * The stream written must be one the decision read: its expected revision
 * is the one read.
 */
export async function runCommand<R>(
  store: EventStore,
  context: CommandContext,
  decide: (reads: CommandReads) => Promise<Decision<R>> | Decision<R>,
  options: CommandOptions = {},
): Promise<CommandResult<R>> {
  const attempts = options.attempts ?? COMMAND_ATTEMPTS;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const reads = new CommandReads(store, attempt === 0 ? options.alreadyRead : undefined);
    const decision = await decide(reads);
    if (decision.record === undefined) return { result: decision.answer, position: decision.position };
    const { streamId, facts } = decision.record;
    const expectedRevision = reads.revisionOf(streamId);
    if (expectedRevision === undefined) throw new Error(`a command appends to ${streamId} without having read it`);
    const expect = reads.othersThan(streamId);
    try {
      const appended = await store.append(
        streamId,
        facts.map((fact) => toNewEvent(fact, context, fact.id)),
        expectedRevision,
        expect.length === 0 ? undefined : { expect },
      );
      return { result: decision.answer, position: appended.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
  }
  throw conflict(CONCURRENT_CHANGE, 'Concurrent requests kept changing what this request depends on; retry it shortly.');
}
