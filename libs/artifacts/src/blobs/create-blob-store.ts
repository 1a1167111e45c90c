import { join } from 'node:path';
import type { LedgerConfig } from '@ledger/platform';
import type { BlobSealer, BlobStore } from './blob-store.port';
import { FilesystemBlobStore } from './filesystem-blob-store';
import { PostgresBlobStore } from './postgres-blob-store';

/**
 * Evidence and certificates live with the events when the events are in
 * PostgreSQL (one backup, one replica), else under the data directory
 * (decision 0032). The service and the operator CLI open the same one.
 */
export function createBlobStore(config: Pick<LedgerConfig, 'dataDir' | 'databaseUrl' | 'eventStoreConnectionString'>, sealer: BlobSealer): BlobStore {
  if (!config.eventStoreConnectionString && config.databaseUrl) return new PostgresBlobStore(config.databaseUrl, sealer);
  return new FilesystemBlobStore(join(config.dataDir, 'blobs'), sealer);
}
