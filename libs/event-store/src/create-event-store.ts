import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDirectory, type LedgerConfig } from '@ledger/platform';
import type { EventStore } from './event-store.port';
import type { LogBuildProgress } from './log-tree';
import { PostgresEventStore } from './postgres/postgres-event-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

/** The file of the embedded store inside the data directory. */
export const SQLITE_FILE_NAME = 'ledger.sqlite';

/** The embedded store's file is not where the configuration says: nothing was created in its place. */
export class LedgerNotFoundError extends Error {
  override name = 'LedgerNotFoundError';
  constructor(readonly file: string) {
    super(`no ledger at ${file}: LEDGER_DATA_DIR names no existing ledger`);
  }
}

type StoreConfig = Pick<LedgerConfig, 'dataDir' | 'eventStoreConnectionString' | 'databaseUrl'>;

/**
 * EventStoreDB when a connection string is configured, else PostgreSQL when
 * a database URL is, else the embedded SQLite file (decision 0032).
 */
export function eventStoreKind(config: Omit<StoreConfig, 'dataDir'>): 'eventstoredb' | 'postgres' | 'sqlite' {
  if (config.eventStoreConnectionString) return 'eventstoredb';
  return config.databaseUrl ? 'postgres' : 'sqlite';
}

/**
 * The store eventStoreKind names. With `create: false` (an operator command
 * that reads the ledger) a missing SQLite file is LedgerNotFoundError: a
 * mistyped LEDGER_DATA_DIR must not become a new, empty ledger that reads as
 * intact. A database named by a URL is never created by the service (an
 * operator creates it), so a mistyped URL fails to connect. `onLogBuild`
 * hears the progress of entering a ledger written before the Merkle tree
 * into it.
 */
export function createEventStore(
  config: StoreConfig,
  { create = true, onLogBuild }: { create?: boolean; onLogBuild?: (progress: LogBuildProgress) => void } = {},
): EventStore {
  switch (eventStoreKind(config)) {
    case 'eventstoredb': {
      // Loaded only when chosen: the EventStoreDB client and its gRPC stack would stay in every process's memory (decision 0037).
      const { EsdbEventStore } = require('./esdb/esdb-event-store') as typeof import('./esdb/esdb-event-store');
      return new EsdbEventStore(config.eventStoreConnectionString!);
    }
    case 'postgres':
      return new PostgresEventStore(config.databaseUrl!, { onLogBuild });
    case 'sqlite': {
      const file = join(config.dataDir, SQLITE_FILE_NAME);
      if (create) ensurePrivateDirectory(config.dataDir);
      else if (!existsSync(file)) throw new LedgerNotFoundError(file);
      // fileMustExist as well: a file removed since the check above is still not created.
      return new SqliteEventStore(file, { fileMustExist: !create, onLogBuild });
    }
  }
}
