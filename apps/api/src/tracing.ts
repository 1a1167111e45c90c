import { buildInfo } from '@ledger/platform';
import { startTracing } from '@ledger/tracing';

// main.ts's first import: tracing must start before Fastify is loaded (libs/tracing).
startTracing('consent-ledger-api', buildInfo().version);
