import { tracingChannel } from 'node:diagnostics_channel';
import { Attributes, Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';

/** What ioredis 6 publishes on `ioredis:command` (its built/tracing.js). */
interface CommandMessage {
  command: string;
  database: number;
  serverAddress: string;
  serverPort?: number;
  error?: unknown;
}

const tracer = trace.getTracer('ledger-redis');
let subscribed = false;

/**
 * A client span per Redis command (those of a MULTI included, each its own),
 * from the tracing channel ioredis 6 publishes on (node:diagnostics_channel): no patching of the
 * client, and ioredis publishes nothing while no one subscribes, so this is
 * only called when tracing starts. The OpenTelemetry contrib instrumentation
 * would patch the same client, and its versions for ioredis 6 need Node 22.
 *
 * Only a command issued under a span is traced (the request's, a job's):
 * the projections' and the workers' polling would otherwise make a trace of
 * every command. Span names and attributes follow the database semantic
 * conventions (`db.system.name` `redis`, `db.operation.name`,
 * `db.namespace` the database index, `server.*`); `db.query.text` is left
 * out, as keys name tenants and consents and traces leave the service.
 */
export function traceRedisCommands(): void {
  if (subscribed) return;
  subscribed = true;
  const spans = new WeakMap<object, Span>();
  tracingChannel<object, CommandMessage>('ioredis:command').subscribe({
    start: (message) => {
      if (trace.getSpan(context.active()) === undefined) return;
      const operation = message.command.toUpperCase();
      const attributes: Attributes = {
        'db.system.name': 'redis',
        'db.operation.name': operation,
        'db.namespace': String(message.database),
        'server.address': message.serverAddress,
      };
      if (message.serverPort !== undefined) attributes['server.port'] = message.serverPort;
      spans.set(message, tracer.startSpan(operation, { kind: SpanKind.CLIENT, attributes }));
    },
    // Published once the command's promise settles, whether it resolved or rejected.
    asyncEnd: (message) => {
      const span = spans.get(message);
      if (!span) return;
      if (message.error !== undefined) {
        const type = message.error instanceof Error ? message.error.name : 'error';
        span.setAttribute('error.type', type);
        span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      }
      span.end();
    },
    end: () => undefined,
    asyncStart: () => undefined,
    error: () => undefined,
  });
}
