import { Attributes, Context, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { AttributeValue, Telemetry, Span as TelemetrySpan, Attributes as TelemetryAttributes } from 'bullmq';
import { tracingStarted } from './start-tracing';

const tracer = trace.getTracer('ledger-queues');

/**
 * The BullMQ attributes kept, under their messaging semantic-convention
 * names where there is one. The others are left out: BullMQ also records a
 * job's options, result and failure message, which may hold what traces must
 * not carry.
 */
const KEPT: Record<string, string> = {
  'bullmq.queue.name': 'messaging.destination.name',
  'bullmq.queue.operation': 'messaging.operation.name',
  'bullmq.job.id': 'messaging.message.id',
  'bullmq.job.name': 'bullmq.job.name',
  'bullmq.job.attempts.made': 'bullmq.job.attempts.made',
};

/** BullMQ's span around one job added (producer) or processed (consumer), as an OpenTelemetry span. */
class MessagingSpan implements TelemetrySpan<Context> {
  constructor(private readonly span: Span) {}

  setSpanOnContext(ctx: Context): Context {
    return trace.setSpan(ctx, this.span);
  }

  setAttribute(key: string, value: AttributeValue): void {
    this.setAttributes({ [key]: value });
  }

  setAttributes(attributes: TelemetryAttributes): void {
    const kept: Attributes = {};
    for (const [key, value] of Object.entries(attributes)) if (key in KEPT && value !== undefined) kept[KEPT[key]] = value;
    this.span.setAttributes(kept);
  }

  addEvent(name: string): void {
    // BullMQ says a job failed with an event, its message as an attribute; the span's status says it without the message.
    if (name === 'job failed') this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'job failed' });
  }

  recordException(): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }

  end(): void {
    this.span.end();
  }
}

/** BullMQ's other operations (fetching the next job, pausing, closing...): no span, the context passes through. */
const UNTRACED: TelemetrySpan<Context> = {
  setSpanOnContext: (ctx) => ctx,
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  addEvent: () => undefined,
  recordException: () => undefined,
  end: () => undefined,
};

const telemetry: Telemetry<Context> = {
  tracer: {
    startSpan(name, options, parent) {
      const kind = options?.kind as number | undefined;
      if (kind !== SpanKind.PRODUCER && kind !== SpanKind.CONSUMER) return UNTRACED;
      const span = tracer.startSpan(
        name,
        { kind, attributes: { 'messaging.system': 'bullmq', 'messaging.operation.type': kind === SpanKind.PRODUCER ? 'send' : 'process' } },
        parent ?? context.active(),
      );
      return new MessagingSpan(span);
    },
  },
  contextManager: {
    with: (ctx, fn) => context.with(ctx as Context, fn),
    active: () => context.active(),
    root: () => ROOT_CONTEXT,
    // The W3C traceparent travels in the job (its options), so the worker's span continues the producer's trace.
    getMetadata(ctx) {
      const carrier: Record<string, string> = {};
      propagation.inject(ctx as Context, carrier);
      return JSON.stringify(carrier);
    },
    fromMetadata: (active, metadata) => propagation.extract(active as Context, JSON.parse(metadata) as Record<string, string>),
  },
};

/**
 * BullMQ's `telemetry` option for queues and workers when tracing runs,
 * undefined otherwise (BullMQ then adds nothing). A job added is a producer
 * span (`add <queue>.<job>`), its processing a consumer span
 * (`process <queue>`), the child of the producer's through the job, in
 * whichever process the worker runs; spans follow the messaging semantic
 * conventions (`messaging.system` `bullmq`, `messaging.destination.name`,
 * `messaging.operation.type` `send` or `process`). BullMQ's other
 * operations, polling included, make no span. Written here rather than
 * taken from `bullmq-otel`, which keeps BullMQ's own attribute names, traces
 * every poll and needs a newer `@opentelemetry/api`.
 */
export function queueTelemetry(): Telemetry<Context> | undefined {
  return tracingStarted() ? telemetry : undefined;
}
