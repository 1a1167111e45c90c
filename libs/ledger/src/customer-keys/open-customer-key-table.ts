import { join } from 'node:path';
import { LedgerConfig, ensurePrivateDirectory } from '@ledger/platform';
import { CustomerKeyTable } from './customer-key-table.port';
import { PostgresCustomerKeyTable } from './postgres-customer-key-table';
import { SqliteCustomerKeyTable } from './sqlite-customer-key-table';

/** The key table's file inside the data directory, beside (never inside) the embedded ledger. */
export const CUSTOMER_KEYS_FILE_NAME = 'customer-keys.sqlite';

/**
 * The key table beside the events: in PostgreSQL when the events are
 * (DATABASE_URL), so that every process on every machine shares one blind
 * index and one set of customer keys; else a SQLite file in the data
 * directory (created 0700 if needed), which the processes of one machine
 * share.
 */
export function openCustomerKeyTable(config: Pick<LedgerConfig, 'dataDir' | 'databaseUrl' | 'eventStoreConnectionString'>): CustomerKeyTable {
  if (!config.eventStoreConnectionString && config.databaseUrl) return new PostgresCustomerKeyTable(config.databaseUrl);
  ensurePrivateDirectory(config.dataDir);
  return new SqliteCustomerKeyTable(join(config.dataDir, CUSTOMER_KEYS_FILE_NAME));
}
