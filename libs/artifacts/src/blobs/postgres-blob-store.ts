import type { Pool } from 'pg';
import { createPostgresPool, migratePostgres, sha256HexInSlices, type PostgresMigrations } from '@ledger/platform';
import {
  assertTenantId,
  blobAddress,
  BlobCorruptedError,
  openVerified,
  readAddresses,
  type BlobSealer,
  type BlobStore,
  type StoredBlob,
} from './blob-store.port';

/**
 * The `blobs` table: one row per tenant and address, holding the sealer's
 * envelope (never the plaintext). The column `content_sha256` holds the
 * address (`blobAddress`): the SHA-256 of the bytes for the tenant's blobs,
 * the SHA-256 over the customer and that hash for a customer's (decision
 * 0048), both 64 hex characters, so the table did not change. Rows are inserted, and deleted only by an
 * erasure: a trigger refuses UPDATE, so a name can never come to hold other
 * bytes, whoever connects (decision 0032).
 */
export const BLOB_STORE_MIGRATIONS: PostgresMigrations = {
  component: 'blob-store',
  steps: [
    `CREATE TABLE blobs (
       tenant_id      uuid        NOT NULL,
       content_sha256 text        NOT NULL CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
       sealed         bytea       NOT NULL,
       stored_at      timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (tenant_id, content_sha256)
     );
     CREATE FUNCTION blobs_are_never_updated() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'blobs are content-addressed and never updated';
     END $$;
     CREATE TRIGGER blobs_never_updated BEFORE UPDATE ON blobs
       FOR EACH ROW EXECUTE FUNCTION blobs_are_never_updated();`,
  ],
};

/** Blob writes and downloads are few and short beside appends: a small pool of their own. */
const POOL_SIZE = 4;

/**
 * Evidence and certificates in the PostgreSQL database that holds the
 * events (used whenever the event store is PostgreSQL), so one backup, one
 * replica and one point-in-time recovery hold everything a fact names.
 *
 * A put commits before it resolves (the server's `synchronous_commit`), and
 * callers store a blob before appending the fact that names it, so a fact
 * never names a missing blob. Storing bytes already held writes nothing and
 * checks that the held row still opens to them; a damaged row is reported
 * (BlobCorruptedError), not repaired, since rows are never updated.
 */
export class PostgresBlobStore implements BlobStore {
  private readonly pool: Pool;
  private readonly ready: Promise<void>;

  constructor(
    connectionString: string,
    private readonly sealer: BlobSealer,
  ) {
    this.pool = createPostgresPool(connectionString, 'ledger-blob-store', POOL_SIZE);
    this.ready = migratePostgres(this.pool, BLOB_STORE_MIGRATIONS);
    // Every call awaits `ready` and reports its failure; this only keeps it from being unhandled meanwhile.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the table exists; rejects when the database cannot be reached or migrated. */
  opened(): Promise<void> {
    return this.ready;
  }

  async put(tenantId: string, bytes: Buffer, customerId?: string): Promise<StoredBlob> {
    assertTenantId(tenantId);
    const contentSha256 = await sha256HexInSlices(bytes);
    const address = blobAddress(contentSha256, customerId);
    await this.ready;
    const sealed = await this.sealer.seal(tenantId, address, bytes, customerId);
    const inserted = await this.pool.query(
      `INSERT INTO blobs (tenant_id, content_sha256, sealed) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, content_sha256) DO NOTHING`,
      [tenantId, address, sealed],
    );
    // Held already (a retried job, the same evidence twice): it must still be these bytes.
    if (inserted.rowCount === 0 && (await this.read(tenantId, address, contentSha256)) === null) {
      throw new BlobCorruptedError(contentSha256, 'it vanished while being stored');
    }
    return { contentSha256, size: bytes.length };
  }

  async get(tenantId: string, contentSha256: string, customerId?: string): Promise<Buffer | null> {
    assertTenantId(tenantId);
    for (const address of readAddresses(contentSha256, customerId)) {
      const bytes = await this.read(tenantId, address, contentSha256);
      if (bytes !== null) return bytes;
    }
    return null;
  }

  async has(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean> {
    assertTenantId(tenantId);
    await this.ready;
    const { rowCount } = await this.pool.query('SELECT 1 FROM blobs WHERE tenant_id = $1 AND content_sha256 = ANY($2)', [
      tenantId,
      readAddresses(contentSha256, customerId),
    ]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Erasure (decision 0035). PostgreSQL keeps a deleted row's bytes in its
   * pages until VACUUM, and in WAL, replicas and backups for as long as they
   * are kept; a customer's evidence is sealed under the customer's key, which
   * the erasure destroys, so what lingers there cannot be opened.
   */
  async delete(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean> {
    assertTenantId(tenantId);
    const address = blobAddress(contentSha256, customerId);
    await this.ready;
    const { rowCount } = await this.pool.query('DELETE FROM blobs WHERE tenant_id = $1 AND content_sha256 = $2', [tenantId, address]);
    return rowCount === 1;
  }

  private async read(tenantId: string, address: string, contentSha256: string): Promise<Buffer | null> {
    await this.ready;
    const { rows } = await this.pool.query<{ sealed: Buffer }>('SELECT sealed FROM blobs WHERE tenant_id = $1 AND content_sha256 = $2', [tenantId, address]);
    return rows.length === 0 ? null : openVerified(this.sealer, tenantId, address, contentSha256, rows[0].sealed);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
