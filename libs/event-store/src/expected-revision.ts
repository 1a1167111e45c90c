import type { ExpectedRevision } from './event-store.port';

/** EventStoreDB's rules for an expected revision against where the stream is. */
export function satisfies(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}

/** Where a batch appended under this expectation began, when the expectation says so. */
export function firstRevisionOf(expected: ExpectedRevision): number | undefined {
  if (expected === 'no_stream') return 0;
  return typeof expected === 'number' ? expected + 1 : undefined;
}

/** Whether recorded events are exactly this batch, in order: the batch is a retry of an append that succeeded. */
export function isSameBatch(recordedIds: string[], events: ReadonlyArray<{ id: string }>): boolean {
  return recordedIds.length === events.length && recordedIds.every((id, i) => id === events[i].id);
}
