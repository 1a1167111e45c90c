import { ROOT_CONTEXT, Span, SpanContext, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { EventStore, NewEvent, RecordedEvent } from '@ledger/event-store';
import { tracingStarted } from './start-tracing';

const tracer = trace.getTracer('ledger-event-store');

/**
 * The append span of each event this process appended lately, by event id,
 * for the dispatchers that follow the store in the same process (the API's):
 * the jobs an event asks for join the trace of the request that recorded it.
 * Bounded, oldest first out: a dispatcher reads an event moments after its
 * append, or after a restart, when no trace of it is left to join anyway.
 */
const appendedUnder = new Map<string, SpanContext>();
const REMEMBERED_APPENDS = 10_000;

function remember(events: readonly NewEvent[], span: Span): void {
  for (const { id } of events) {
    appendedUnder.set(id, span.spanContext());
    if (appendedUnder.size > REMEMBERED_APPENDS) appendedUnder.delete(appendedUnder.keys().next().value!);
  }
}

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
    append: (streamId, events, expectedRevision, options) =>
      inSpan('event-store append', async (span) => {
        span.setAttributes({ 'ledger.stream.category': categoryOf(streamId), 'ledger.events': events.length });
        const result = await store.append(streamId, events, expectedRevision, options);
        remember(events, span);
        return result;
      }),
    readStream: (streamId, options) =>
      inSpan('event-store readStream', (span) => {
        span.setAttribute('ledger.stream.category', categoryOf(streamId));
        return store.readStream(streamId, options);
      }),
    readAll: (options) => inSpan('event-store readAll', () => store.readAll(options)),
    streamIds: (prefix) => inSpan('event-store streamIds', () => store.streamIds(prefix)),
    headPosition: () => inSpan('event-store headPosition', () => store.headPosition()),
    // A subscription lives as long as the process: no one span can stand for it.
    subscribeToAll: (options) => store.subscribeToAll(options),
    // A dispatcher's bookkeeping, beside requests: untraced.
    finishedMarks: store.finishedMarks,
    // The tree's reads serve proofs and audits, never a request's decision: untraced.
    log: store.log,
    close: () => store.close(),
  };
}

/**
 * Runs `work` (adding the jobs `event` asks for) in the trace of the append
 * that recorded the event, when this process made it; in no trace
 * otherwise. Undefined when tracing is off, so a dispatcher pays nothing.
 */
export function inTraceOfAppend(): (<T>(event: RecordedEvent, work: () => Promise<T>) => Promise<T>) | undefined {
  if (!tracingStarted()) return undefined;
  return (event, work) => {
    const appended = appendedUnder.get(event.id);
    return context.with(appended ? trace.setSpanContext(ROOT_CONTEXT, appended) : ROOT_CONTEXT, work);
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
