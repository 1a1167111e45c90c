import type { Config } from 'jest';

// One configuration for every suite: unit specs sit beside the code they test
// (libs/**/*.spec.ts), end-to-end suites live in test/ (*.e2e-spec.ts) and run
// against the real HTTP stack, the real SQLite store and a real Redis; the
// model-based test of the REDEC lifecycle lives in test/model (*.model-spec.ts);
// the fuzzing harness's own logic has its specs beside it in fuzz/.
const config: Config = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/fuzz/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.model-spec.ts'],
  // The EventStoreDB contract suite needs a server; without one, the global
  // setup prints a notice instead of running it.
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.EVENTSTORE_CONNECTION_STRING ? [] : ['/esdb-event-store\\.contract\\.spec\\.ts$'])],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    '^.+/node_modules/@nestjs/.+\\.js$': '<rootDir>/scripts/jest-esm-to-cjs.js',
    // @fastify/cookie loads the ESM-only `cookie` package with a dynamic import().
    '^.+/node_modules/(@fastify/cookie|cookie)/.+\\.js$': '<rootDir>/scripts/jest-esm-to-cjs.js',
    // @fastify/static (Swagger UI's files at /docs) requires the ESM-only `content-disposition`.
    '^.+/node_modules/content-disposition/.+\\.js$': '<rootDir>/scripts/jest-esm-to-cjs.js',
  },
  // Type checking is `npm run typecheck`; jest only transpiles.
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/|@fastify/cookie/|cookie/|content-disposition/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@ledger/platform/testing$': '<rootDir>/libs/platform/src/testing',
    '^@ledger/event-store/testing$': '<rootDir>/libs/event-store/src/testing',
    '^@ledger/artifacts/testing$': '<rootDir>/libs/artifacts/src/testing',
    '^@ledger/(.*)$': '<rootDir>/libs/$1/src',
    '^@consent-ledger/client$': '<rootDir>/clients/typescript/src',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // A bound, not a timing: suites that start the service or the CLI as processes (ts-node) take 5-15 s
  // alone and several times that on a loaded 2-core machine.
  testTimeout: 90_000,
  maxWorkers: 2,
};

export default config;
