export { BUILD_INFO_METRIC, createMetricsRegistry } from './metrics-registry';
export { HTTP_REQUEST_DURATION_METRIC, recordHttpRequests } from './http-request-metrics';
export { startMetricsServer } from './metrics-server';
export type { Registry as MetricsRegistry } from 'prom-client';
