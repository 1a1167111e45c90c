import { tracingChannel } from 'node:diagnostics_channel';
import Fastify from 'fastify';
import type { EventStore } from '@ledger/event-store';
import { nameServerSpansByRoute } from './route-span-names';
import { startTracing, tracingStarted } from './start-tracing';
import { queueTelemetry } from './queue-telemetry';
import { traceLogFields } from './trace-log-fields';
import { inTraceOfAppend, traceEventStore } from './traced-event-store';

// Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is added to the request path
// (the trace itself is test/tracing.e2e-spec.ts's, in a process of its own).
describe('tracing, off', () => {
  it('does not start without an endpoint, nor with OTEL_SDK_DISABLED=true', () => {
    expect(startTracing('test', '0', {})).toBe(false);
    expect(startTracing('test', '0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingStarted()).toBe(false);
  });

  it('leaves the event store as it is, adds no hook to the HTTP server, no field to log lines, no telemetry to BullMQ, nothing around the dispatchers, and does not listen to ioredis', async () => {
    const store = {} as EventStore;
    expect(traceEventStore(store)).toBe(store);
    expect(traceLogFields()).toBeUndefined();
    expect(queueTelemetry()).toBeUndefined();
    expect(inTraceOfAppend()).toBeUndefined();
    // ioredis publishes a command's events only while its channel has subscribers.
    expect(tracingChannel('ioredis:command').hasSubscribers).toBe(false);
    const fastify = Fastify();
    const hooks: string[] = [];
    fastify.addHook = ((name: string) => hooks.push(name)) as unknown as typeof fastify.addHook;
    nameServerSpansByRoute(fastify);
    expect(hooks).toEqual([]);
    await fastify.close();
  });
});
