export { startTracing, stopTracing, tracingStarted } from './start-tracing';
export { traceEventStore } from './traced-event-store';
export { nameServerSpansByRoute } from './route-span-names';
export { traceLogFields } from './trace-log-fields';
