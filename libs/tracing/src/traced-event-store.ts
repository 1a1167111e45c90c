import { Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { EventStore } from '@ledger/event-store';
import { tracingStarted } from './start-tracing';

const tracer = trace.getTracer('ledger-event-store');

/**
 * The event store with a span around each append and read, children of the
 * request's span. The stream's category (`tenant`, `customer`, `redec`...)
 * is recorded, never its id: ids name tenants and customers, and traces
 * leave the service. Without tracing the store is returned as it is, so
 * disabled tracing costs nothing per call.
 */
export function traceEventStore(store: EventStore): EventStore {
  if (!tracingStarted()) return store;
  return {
    append: (streamId, events, expectedRevision) =>
      inSpan('event-store append', (span) => {
        span.setAttributes({ 'ledger.stream.category': categoryOf(streamId), 'ledger.events': events.length });
        return store.append(streamId, events, expectedRevision);
      }),
    readStream: (streamId, options) =>
      inSpan('event-store readStream', (span) => {
        span.setAttribute('ledger.stream.category', categoryOf(streamId));
        return store.readStream(streamId, options);
      }),
    readAll: (options) => inSpan('event-store readAll', () => store.readAll(options)),
    headPosition: () => inSpan('event-store headPosition', () => store.headPosition()),
    // A subscription lives as long as the process: no one span can stand for it.
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: () => store.close(),
  };
}

function inSpan<T>(name: string, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}
