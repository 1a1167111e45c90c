import './tracing';
import 'reflect-metadata';
import { boundHeapGrowth, loadConfig } from '@ledger/platform';
import { createApiApp, listenApiApp } from './create-api-app';

async function main(): Promise<void> {
  // Before the catch-up starts: its garbage would otherwise grow the heap to several times the live data (decision 0037).
  boundHeapGrowth();
  const config = loadConfig();
  const app = await createApiApp(config);
  await listenApiApp(app, config);
}

main().catch((error: unknown) => {
  process.stderr.write(`consent ledger failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
