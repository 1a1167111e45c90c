import { join } from 'node:path';
import { ensurePrivateDirectory, type LedgerConfig } from '@ledger/platform';
import { EsdbEventStore } from './esdb/esdb-event-store';
import type { EventStore } from './event-store.port';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

/** The file of the embedded store inside the data directory. */
export const SQLITE_FILE_NAME = 'ledger.sqlite';

/** EventStoreDB when a connection string is configured, else the embedded SQLite file (CONTRACT.md, "Running it"). */
export function createEventStore(config: Pick<LedgerConfig, 'dataDir' | 'eventStoreConnectionString'>): EventStore {
  if (config.eventStoreConnectionString) return new EsdbEventStore(config.eventStoreConnectionString);
  ensurePrivateDirectory(config.dataDir);
  return new SqliteEventStore(join(config.dataDir, SQLITE_FILE_NAME));
}
