import { Provider } from '@nestjs/common';
import { createMetricsRegistry } from '@ledger/metrics';
import { buildInfo } from '@ledger/platform';

/** This process's registry: runtime metrics, ledger_build_info, and the HTTP request histogram createApiApp installs. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

export const metricsRegistryProvider: Provider = { provide: METRICS_REGISTRY, useFactory: () => createMetricsRegistry(buildInfo()) };
