import type { RecordedEvent } from '@ledger/event-store';

/** Why `next` returned no events. */
export type NoBatch = 'idle' | 'ended';

const IMMEDIATE = Symbol('immediate');
const IDLE = Symbol('idle');

/**
 * Turns a subscription's pages into batches: it waits for one page, then takes
 * every page that is already available, up to `maxSize` events (what a batch
 * leaves of a page starts the next one). During a catch-up pages come out of
 * the store without waiting, so batches fill up; live, a batch closes as soon
 * as the next page is not ready yet (one `setImmediate` later), so a single
 * append is projected within milliseconds.
 */
export class BatchReader {
  private pending: Promise<IteratorResult<readonly RecordedEvent[]>> | undefined;
  /** The events of the last page taken that no batch has held yet. */
  private rest: readonly RecordedEvent[] = [];
  private ended = false;

  constructor(private readonly iterator: AsyncIterator<readonly RecordedEvent[]>) {}

  /**
   * The next batch; 'idle' when no event came within `idleMs` or `signal`
   * aborted; 'ended' when the subscription finished and every event it gave
   * has been in a batch.
   */
  async next(maxSize: number, idleMs: number, signal: AbortSignal): Promise<RecordedEvent[] | NoBatch> {
    if (this.rest.length === 0) {
      if (this.ended) return 'ended';
      const first = await this.take(idleOrAbort(idleMs, signal));
      if (first === IDLE) return 'idle';
      if (first.done) {
        this.ended = true;
        return 'ended';
      }
      this.rest = first.value;
    }
    const batch: RecordedEvent[] = [];
    for (;;) {
      const room = maxSize - batch.length;
      for (let i = 0; i < room && i < this.rest.length; i++) batch.push(this.rest[i]);
      this.rest = this.rest.length > room ? this.rest.slice(room) : [];
      if (batch.length >= maxSize || this.ended) return batch;
      const next = await this.take(nextTurn());
      if (next === IMMEDIATE) return batch;
      if (next.done) {
        this.ended = true;
        return batch;
      }
      this.rest = next.value;
    }
  }

  /** Lets go of the subscription without waiting for it (it may be waiting for an event). */
  close(): void {
    this.pending?.catch(() => undefined);
    this.iterator.return?.().catch(() => undefined);
  }

  /** The pending page if it settles before `deadline`; a page not taken stays pending for the next call. */
  private async take<T extends symbol>(deadline: Deadline<T>): Promise<IteratorResult<readonly RecordedEvent[]> | T> {
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
