import Database from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS, WrongExpectedVersionError, migrateSchema } from '@ledger/event-store';
import { restrictToOwner } from '@ledger/platform';
import { BlindIndexClaim, BlindIndexKind, ClaimRevision, CustomerKeyRecord, CustomerKeyRow, CustomerKeyTable, customerKeyRecordOf } from './customer-key-table.port';

/** Applied in order; a database records how many it has applied. Never edit one that shipped. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE customer_keys (
     tenant_id          TEXT    NOT NULL,
     customer_id        TEXT    NOT NULL,
     data_key_id        TEXT    UNIQUE,
     tenant_data_key_id TEXT,
     wrapped_key        TEXT,
     created_at         INTEGER NOT NULL,
     erased_at          INTEGER,
     PRIMARY KEY (tenant_id, customer_id)
   ) WITHOUT ROWID;
   CREATE TABLE blind_index (
     tenant_id   TEXT    NOT NULL,
     kind        TEXT    NOT NULL,
     value_hash  TEXT    NOT NULL,
     customer_id TEXT    NOT NULL,
     claimed_at  INTEGER NOT NULL,
     revision    INTEGER NOT NULL,
     PRIMARY KEY (tenant_id, kind, value_hash)
   ) WITHOUT ROWID;
   CREATE INDEX blind_index_by_customer ON blind_index (tenant_id, customer_id);`,
];


/**
 * The key table in a SQLite file of its own: the event store's file is
 * append-only and hash-chained, and a destroyed key must leave no bytes
 * behind. `secure_delete` overwrites deleted rows with zeros, and the
 * rollback journal (not WAL) holds a page's old content only while its
 * transaction runs, so a destroyed key is gone from the files at commit.
 * Several processes (the service, the CLI's erase) share the file; writes
 * are rare (a new customer, a claim, an erasure), so the journal costs
 * nothing that matters.
 */
export class SqliteCustomerKeyTable implements CustomerKeyTable {
  private readonly db: Database.Database;

  constructor(filePath: string) {
    this.db = new Database(filePath);
    restrictToOwner(filePath, `${filePath}-journal`);
    this.db.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    this.db.pragma('journal_mode = DELETE');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('synchronous = FULL');
    migrateSchema(this.db, MIGRATIONS, 'key table');
  }

  async find(tenantId: string, customerId: string): Promise<CustomerKeyRecord | null> {
    const row = this.db.prepare('SELECT * FROM customer_keys WHERE tenant_id = ? AND customer_id = ?').get(tenantId, customerId) as CustomerKeyRow | undefined;
    return row ? customerKeyRecordOf(row) : null;
  }

  async findByKeyId(tenantId: string, dataKeyId: string): Promise<CustomerKeyRecord | null> {
    const row = this.db.prepare('SELECT * FROM customer_keys WHERE tenant_id = ? AND data_key_id = ?').get(tenantId, dataKeyId) as CustomerKeyRow | undefined;
    return row ? customerKeyRecordOf(row) : null;
  }

  async insert(key: CustomerKeyRecord): Promise<CustomerKeyRecord> {
    this.db
      .prepare(
        `INSERT INTO customer_keys (tenant_id, customer_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, customer_id) DO NOTHING`,
      )
      .run(key.tenantId, key.customerId, key.dataKeyId, key.tenantDataKeyId, key.wrappedKey, key.createdAt, key.erasedAt);
    return (await this.find(key.tenantId, key.customerId))!;
  }

  async destroy(tenantId: string, customerId: string, erasedAt: number): Promise<void> {
    this.db
      .transaction(() => {
        const updated = this.db
          .prepare('UPDATE customer_keys SET wrapped_key = NULL, erased_at = COALESCE(erased_at, ?) WHERE tenant_id = ? AND customer_id = ?')
          .run(erasedAt, tenantId, customerId);
        if (updated.changes === 0) {
          // A customer that never needed a key gets a tombstone, so that none is created for it later.
          this.db
            .prepare(`INSERT INTO customer_keys (tenant_id, customer_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at) VALUES (?, ?, NULL, NULL, NULL, ?, ?)`)
            .run(tenantId, customerId, erasedAt, erasedAt);
        }
        this.db.prepare('DELETE FROM blind_index WHERE tenant_id = ? AND customer_id = ?').run(tenantId, customerId);
      })
      .immediate();
  }

  async readClaim(tenantId: string, kind: BlindIndexKind, valueHash: string): Promise<BlindIndexClaim | null> {
    const row = this.db
      .prepare('SELECT customer_id, claimed_at, revision FROM blind_index WHERE tenant_id = ? AND kind = ? AND value_hash = ?')
      .get(tenantId, kind, valueHash) as { customer_id: string; claimed_at: number; revision: number } | undefined;
    return row ? { customerId: row.customer_id, claimedAt: row.claimed_at, revision: row.revision } : null;
  }

  async writeClaim(tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision): Promise<void> {
    const where = `blind index ${kind}`;
    this.db
      .transaction(() => {
        const current = this.db.prepare('SELECT revision FROM blind_index WHERE tenant_id = ? AND kind = ? AND value_hash = ?').get(tenantId, kind, valueHash) as
          | { revision: number }
          | undefined;
        const actual = current?.revision ?? 'no_stream';
        if (expected === 'no_stream' ? current !== undefined : expected !== actual) throw new WrongExpectedVersionError(where, expected, actual);
        if (current === undefined) {
          this.db
            .prepare('INSERT INTO blind_index (tenant_id, kind, value_hash, customer_id, claimed_at, revision) VALUES (?, ?, ?, ?, ?, 0)')
            .run(tenantId, kind, valueHash, claim.customerId, claim.claimedAt);
        } else {
          this.db
            .prepare('UPDATE blind_index SET customer_id = ?, claimed_at = ?, revision = revision + 1 WHERE tenant_id = ? AND kind = ? AND value_hash = ?')
            .run(claim.customerId, claim.claimedAt, tenantId, kind, valueHash);
        }
      })
      .immediate();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
