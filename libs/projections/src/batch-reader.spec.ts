import type { RecordedEvent } from '@ledger/event-store';
import { recorded } from '../test/stream-counts.projection';
import { BatchReader } from './batch-reader';

/** A subscription fed by hand: each push is delivered as one page; `end()` finishes it. */
function manualSubscription() {
  const queue: Array<readonly RecordedEvent[]> = [];
  let wake: (() => void) | undefined;
  let ended = false;
  async function* pages(): AsyncGenerator<readonly RecordedEvent[]> {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const push = (...page: RecordedEvent[]) => {
    queue.push(page);
    wake?.();
  };
  const end = () => {
    ended = true;
    wake?.();
  };
  return { iterator: pages(), push, end };
}

const noted = (...at: number[]) => at.map((p) => recorded('s', 'Noted', p));
const positions = (batch: RecordedEvent[] | string) => (typeof batch === 'string' ? batch : batch.map((e) => e.position));
const never = new AbortController().signal;

describe('BatchReader', () => {
  it('takes every event already available, up to the maximum size, and starts the next batch with what a page left', async () => {
    const source = manualSubscription();
    source.push(...noted(1, 2, 3, 4, 5));
    const reader = new BatchReader(source.iterator);
    expect(positions(await reader.next(3, 1000, never))).toEqual([1, 2, 3]);
    expect(positions(await reader.next(3, 1000, never))).toEqual([4, 5]);
  });

  it('joins the pages already available into one batch', async () => {
    const source = manualSubscription();
    source.push(...noted(1, 2));
    source.push(...noted(3));
    source.push(...noted(4, 5, 6));
    const reader = new BatchReader(source.iterator);
    expect(positions(await reader.next(5, 1000, never))).toEqual([1, 2, 3, 4, 5]);
    expect(positions(await reader.next(5, 1000, never))).toEqual([6]);
  });

  it('closes a batch when the next event is not ready yet, and delivers it in the next batch', async () => {
    const source = manualSubscription();
    const reader = new BatchReader(source.iterator);
    source.push(...noted(1));
    const first = reader.next(100, 1000, never);
    expect(positions(await first)).toEqual([1]);
    setTimeout(() => source.push(...noted(2)), 20);
    expect(positions(await reader.next(100, 1000, never))).toEqual([2]);
  });

  it("answers 'idle' when no event comes in time, without losing the event that comes later", async () => {
    const source = manualSubscription();
    const reader = new BatchReader(source.iterator);
    expect(await reader.next(100, 10, never)).toBe('idle');
    source.push(...noted(7));
    expect(positions(await reader.next(100, 1000, never))).toEqual([7]);
  });

  it("answers 'idle' at once when the signal aborts", async () => {
    const reader = new BatchReader(manualSubscription().iterator);
    const controller = new AbortController();
    const pending = reader.next(100, 60_000, controller.signal);
    controller.abort();
    expect(await pending).toBe('idle');
  });

  it("delivers what came before the end, then answers 'ended'", async () => {
    const source = manualSubscription();
    source.push(...noted(1, 2, 3));
    source.end();
    const reader = new BatchReader(source.iterator);
    expect(positions(await reader.next(2, 1000, never))).toEqual([1, 2]);
    expect(positions(await reader.next(2, 1000, never))).toEqual([3]);
    expect(await reader.next(2, 1000, never)).toBe('ended');
  });
});
