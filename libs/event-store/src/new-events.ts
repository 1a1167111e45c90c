import type { NewEvent } from './event-store.port';

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
