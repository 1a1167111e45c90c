import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { BuildInfo } from '@ledger/platform';

export const BUILD_INFO_METRIC = 'ledger_build_info';

/**
 * One process's own metrics: prom-client's process and runtime families
 * (CPU, memory, heap, event loop lag, GC, handles) and `ledger_build_info`.
 * A registry of its own rather than prom-client's global one, so that two
 * applications in one process (the end-to-end tests) never register a
 * family twice.
 */
export function createMetricsRegistry(build: BuildInfo): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const info = new Gauge({
    name: BUILD_INFO_METRIC,
    help: 'Always 1; its labels say which build runs: the version, the commit it was built from (unknown outside an image), the Node.js version.',
    labelNames: ['version', 'commit', 'node_version'],
    registers: [registry],
  });
  info.set({ version: build.version, commit: build.commit, node_version: build.nodeVersion }, 1);
  return registry;
}
