import { trace } from '@opentelemetry/api';
import { tracingStarted } from './start-tracing';

/**
 * The log lines' link to the traces: `trace_id` and `span_id` of the span
 * current when a line is written (a request's lines carry its trace), for
 * the logger's mixin. Undefined when tracing is off, so that no line pays
 * for it. A new object each time: pino merges each line's fields into it.
 */
export function traceLogFields(): (() => Record<string, unknown>) | undefined {
  if (!tracingStarted()) return undefined;
  return () => {
    const span = trace.getActiveSpan();
    if (!span) return {};
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  };
}
