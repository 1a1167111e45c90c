import type { AppendOptions, NewEvent, StreamExpectation } from './event-store.port';

/**
 * Refuses appends that no store could record meaningfully: both adapters call
 * it before touching storage, so they fail alike.
 */
export function assertAppendable(streamId: string, events: NewEvent[]): void {
  if (typeof streamId !== 'string' || streamId.length === 0) throw new TypeError('streamId must be a non-empty string');
  if (events.length === 0) throw new TypeError(`stream ${streamId}: an append needs at least one event`);
  // Runs for every append: a lone event needs no check, a batch one Set.
  if (events.length > 1 && new Set(events.map((event) => event.id)).size !== events.length) {
    throw new TypeError(`stream ${streamId}: event ids repeat within one append`);
  }
}

/**
 * The streams a guarded append expects, or undefined when it expects none.
 * Copied, because the adapters judge them later (in the group's
 * transaction) and the caller may reuse its array meanwhile. Refuses an
 * expectation no store could judge meaningfully, as `assertAppendable` does:
 * one on the written stream (whose own expected revision says where it must
 * be) or on an empty stream id.
 */
export function expectationsOf(streamId: string, options: AppendOptions | undefined): StreamExpectation[] | undefined {
  const expect = options?.expect;
  if (expect === undefined || expect.length === 0) return undefined;
  return expect.map(({ streamId: expected, expectedRevision }) => {
    if (typeof expected !== 'string' || expected.length === 0) {
      throw new TypeError(`stream ${streamId}: an expected stream id must be a non-empty string`);
    }
    if (expected === streamId) {
      throw new TypeError(`stream ${streamId}: an append cannot expect the stream it writes; its expectedRevision says where that stream must be`);
    }
    return { streamId: expected, expectedRevision };
  });
}
