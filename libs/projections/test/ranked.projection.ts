import type { NewEvent } from '@ledger/event-store';
import type { DocumentProjection } from '../src';
import { newEvent } from './stream-counts.projection';

/** A document per stream, with the rank its last `Ranked` event gave it. */
export interface Ranked {
  tenantId: string;
  stream: string;
  rank: string;
}

/**
 * The projection the ordered-index tests run: every document of a tenant is
 * listed under the tenant in the `rank` index, ordered by its rank (a
 * fixed-width string, the sort key); `Closed` deletes.
 */
export function ranked(version = 1): DocumentProjection<Ranked> {
  return {
    name: 'ranked',
    version,
    route: (event) => [`${event.metadata.tenantId}:${event.streamId}`],
    evolve: (doc, event) =>
      event.type === 'Closed' ? null : { tenantId: event.metadata.tenantId!, stream: event.streamId, rank: (event.data as { rank: string }).rank },
    indexes: (doc) => [{ index: 'rank', value: doc.tenantId, sortKey: doc.rank }],
  };
}

export function rankedEvent(rank: string): NewEvent {
  return { ...newEvent('Ranked'), data: { rank } };
}
