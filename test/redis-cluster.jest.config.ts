import type { Config } from 'jest';
import base from '../jest.config';

/**
 * The suites that exercise every use of Redis (the read model and its
 * rebuilds, the queues and their dispatchers, rate limits, metrics), run
 * again against a real three-primary Redis Cluster that the global setup
 * starts from the installed redis-server (decision 0091). `npm test` runs
 * them after the main run. (libs/platform's cluster spec starts a cluster
 * of its own and runs in the main run.)
 */
const config: Config = {
  ...base,
  rootDir: '..',
  testMatch: [
    '<rootDir>/libs/projections/test/{projection-runner,rebuild,grouped-documents,ordered-index,document-compression}.integration.spec.ts',
    '<rootDir>/test/{redec-lifecycle,redec-accesses,redec-operator-lists,audit-replay,customers,webhook-deliveries,read-model-rebuild,projection-rebuild,rights-requests,regulatory-reports,rate-limits,metrics,cli}.e2e-spec.ts',
  ],
  globalSetup: '<rootDir>/test/support/redis-cluster-setup.ts',
  globalTeardown: '<rootDir>/test/support/redis-cluster-teardown.ts',
};

export default config;
