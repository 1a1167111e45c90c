import { setImmediate } from 'node:timers/promises';

/**
 * How much of a large buffer is hashed or encrypted in one turn of the event
 * loop: a millisecond or two of work. Hashing or sealing 11 MB of evidence
 * in one call held every other request for 40 ms and more (the fresh 11 MB
 * output alone cost as much in page faults as the cipher), and twenty such
 * uploads at once stacked those stalls into reads 300 ms late.
 */
export const SLICE_BYTES = 1024 * 1024;

/** `bytes` in slices of SLICE_BYTES (views, not copies), the event loop free between two. */
export async function* slicesOf(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += SLICE_BYTES) {
    if (start > 0) await nextTurn();
    yield bytes.subarray(start, start + SLICE_BYTES);
  }
}

/** Resolves on the event loop's next turn, after the I/O that is waiting. */
export function nextTurn(): Promise<void> {
  return setImmediate();
}
