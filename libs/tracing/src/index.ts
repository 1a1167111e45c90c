export { startTracing, stopTracing, tracingStarted } from './start-tracing';
export { inTraceOfAppend, traceEventStore } from './traced-event-store';
export { nameServerSpansByRoute } from './route-span-names';
export { traceLogFields } from './trace-log-fields';
export { queueTelemetry } from './queue-telemetry';
