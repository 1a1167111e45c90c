import { buildInfo } from '@ledger/platform';
import { startTracing } from '@ledger/tracing';

// main.ts's first import: tracing must start before the HTTP clients (webhook deliveries) are loaded (libs/tracing).
startTracing('consent-ledger-worker', buildInfo().version);
