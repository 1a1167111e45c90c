// Jest loads this file outside its module registry: the @ledger/* paths come from tsconfig.json.
import 'tsconfig-paths/register';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { dropAbandonedTestDatabases } from '@ledger/event-store/testing';

/**
 * Runs once in jest's main process, so what it prints is always visible:
 * jest drops the console output of suites whose tests are all skipped.
 */
export default async function globalSetup(): Promise<void> {
  // The API's projection thread runs from dist/ (apps/api/src/projection-thread.ts), as do the CLI and the built services.
  execFileSync(process.execPath, [join(__dirname, '../../scripts/build-if-needed.js')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dropped = await dropAbandonedTestDatabases();
  if (dropped > 0) process.stderr.write(`\nnotice: dropped ${dropped} test database(s) left by runs that were killed.\n`);
  if (!process.env.EVENTSTORE_CONNECTION_STRING) {
    process.stderr.write(
      '\nnotice: the EventStoreDB contract suite is not run; set EVENTSTORE_CONNECTION_STRING ' +
        "(e.g. 'esdb://127.0.0.1:2113?tls=false' with docker/compose.yml's eventstoredb) to run it.\n\n",
    );
  }
}
