import type { RecordedEvent } from '@ledger/event-store';

/** Why `next` returned no events. */
export type NoBatch = 'idle' | 'ended';

const IMMEDIATE = Symbol('immediate');
const IDLE = Symbol('idle');

/**
 * Turns a subscription into batches: it waits for one event, then takes every
 * event that is already available, up to `maxSize`. During a catch-up events
 * come out of the store's pages without waiting, so batches fill up; live,
 * a batch closes as soon as the next event is not ready yet (one
 * `setImmediate` later), so a single append is projected within milliseconds.
 */
export class BatchReader {
  private pending: Promise<IteratorResult<RecordedEvent>> | undefined;
  private ended = false;

  constructor(private readonly iterator: AsyncIterator<RecordedEvent>) {}

  /**
   * The next batch; 'idle' when no event came within `idleMs` or `signal`
   * aborted; 'ended' when the subscription finished.
   */
  async next(maxSize: number, idleMs: number, signal: AbortSignal): Promise<RecordedEvent[] | NoBatch> {
    if (this.ended) return 'ended';
    const first = await this.take(idleOrAbort(idleMs, signal));
    if (first === IDLE) return 'idle';
    if (first.done) {
      this.ended = true;
      return 'ended';
    }
    const batch = [first.value];
    while (batch.length < maxSize) {
      const next = await this.take(nextTurn());
      if (next === IMMEDIATE) break;
      if (next.done) {
        this.ended = true;
        break;
      }
      batch.push(next.value);
    }
    return batch;
  }

  /** Lets go of the subscription without waiting for it (it may be waiting for an event). */
  close(): void {
    this.pending?.catch(() => undefined);
    this.iterator.return?.().catch(() => undefined);
  }

  /** The pending event if it settles before `deadline`; an event not taken stays pending for the next call. */
  private async take<T extends symbol>(deadline: Deadline<T>): Promise<IteratorResult<RecordedEvent> | T> {
    this.pending ??= this.iterator.next();
    try {
      const result = await Promise.race([this.pending, deadline.promise]);
      if (typeof result !== 'symbol') this.pending = undefined;
      return result;
    } finally {
      deadline.cancel();
    }
  }
}

interface Deadline<T> {
  promise: Promise<T>;
  cancel(): void;
}

function nextTurn(): Deadline<typeof IMMEDIATE> {
  let handle: NodeJS.Immediate | undefined;
  const promise = new Promise<typeof IMMEDIATE>((resolve) => {
    handle = setImmediate(() => resolve(IMMEDIATE));
  });
  return { promise, cancel: () => clearImmediate(handle) };
}

function idleOrAbort(ms: number, signal: AbortSignal): Deadline<typeof IDLE> {
  let cancel: () => void = () => undefined;
  const promise = new Promise<typeof IDLE>((resolve) => {
    const done = () => resolve(IDLE);
    if (signal.aborted) return done();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    cancel = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
    };
  });
  return { promise, cancel };
}
