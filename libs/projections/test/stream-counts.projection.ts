import { randomUUID } from 'node:crypto';
import type { NewEvent, RecordedEvent } from '@ledger/event-store';
import { groupedId, type DocumentCompression, type DocumentProjection } from '../src';

/** A document per stream: how many events it has seen and the type of the last one. */
export interface StreamCount {
  tenantId: string;
  stream: string;
  count: number;
  lastType: string;
}

/**
 * The projection the tests run: it counts (so a lost or doubled event shows),
 * ignores `Ignored` events (so unrouted events must still advance the
 * checkpoint), deletes on `Closed`, and indexes by tenant and last type;
 * stores its documents deflated when given a dictionary.
 */
export function streamCounts(version = 1, compression?: DocumentCompression): DocumentProjection<StreamCount> {
  return {
    name: 'stream-counts',
    version,
    compression,
    route: (event) => (event.type === 'Ignored' ? [] : [`${event.metadata.tenantId}:${event.streamId}`]),
    evolve: (doc, event) =>
      event.type === 'Closed'
        ? null
        : { tenantId: event.metadata.tenantId!, stream: event.streamId, count: (doc?.count ?? 0) + 1, lastType: event.type },
    indexes: (doc) => [{ index: 'lastType', value: `${doc.tenantId}:${doc.lastType}` }],
  };
}

/** The same counts kept grouped (decision 0088): one hash per tenant, a field per stream, no index. */
export function groupedStreamCounts(version = 1): DocumentProjection<StreamCount> {
  const { indexes: _none, ...counts } = streamCounts(version);
  return {
    ...counts,
    name: 'grouped-stream-counts',
    grouped: true,
    route: (event) => (event.type === 'Ignored' ? [] : [groupedId(event.metadata.tenantId!, event.streamId)]),
  };
}

export function newEvent(type: string, tenantId = 't1'): NewEvent {
  return { id: randomUUID(), type, data: {}, metadata: { tenantId, correlationId: randomUUID(), recordedAt: 0, schemaVersion: 1 } };
}

/** A recorded event for unit tests of pure logic. */
export function recorded(streamId: string, type: string, position: number): RecordedEvent {
  return { ...newEvent(type), streamId, revision: 0, position, created: 0, integrity: { hash: '', previousHash: null } };
}
