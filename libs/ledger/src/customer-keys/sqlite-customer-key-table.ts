import Database from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS, WrongExpectedVersionError, migrateSchema } from '@ledger/event-store';
import { restrictToOwner } from '@ledger/platform';
import {
  BlindIndexClaim,
  BlindIndexKind,
  ClaimRevision,
  CustomerKeyRecord,
  CustomerKeyRow,
  CustomerKeyTable,
  ReportKeyRecord,
  ReportKeyRow,
  customerKeyRecordOf,
  reportKeyRecordOf,
} from './customer-key-table.port';

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
  `CREATE TABLE report_keys (
     tenant_id          TEXT    NOT NULL,
     report_id          TEXT    NOT NULL,
     data_key_id        TEXT    UNIQUE,
     tenant_data_key_id TEXT,
     wrapped_key        TEXT,
     created_at         INTEGER NOT NULL,
     erased_at          INTEGER,
     PRIMARY KEY (tenant_id, report_id)
   ) WITHOUT ROWID;`,
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
  /** Prepared once: resolution and every protected write read this table, and preparing costs more than the lookup. */
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly destroyKey: (tenantId: string, customerId: string, erasedAt: number) => void;
  private readonly destroyReportKeyNow: (tenantId: string, reportId: string, erasedAt: number) => void;
  private readonly claim: (tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision) => void;

  constructor(filePath: string) {
    this.db = new Database(filePath);
    restrictToOwner(filePath, `${filePath}-journal`);
    this.db.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    this.db.pragma('journal_mode = DELETE');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('synchronous = FULL');
    migrateSchema(this.db, MIGRATIONS, 'key table');
    const statements = (this.statements = prepareStatements(this.db));
    this.destroyKey = this.db.transaction((tenantId: string, customerId: string, erasedAt: number) => {
      const updated = statements.eraseKey.run(erasedAt, tenantId, customerId);
      // A customer that never needed a key gets a tombstone, so that none is created for it later.
      if (updated.changes === 0) statements.insertTombstone.run(tenantId, customerId, erasedAt, erasedAt);
      statements.deleteClaims.run(tenantId, customerId);
    }).immediate;
    this.destroyReportKeyNow = this.db.transaction((tenantId: string, reportId: string, erasedAt: number) => {
      const updated = statements.eraseReportKey.run(erasedAt, tenantId, reportId);
      if (updated.changes === 0) statements.insertReportTombstone.run(tenantId, reportId, erasedAt, erasedAt);
    }).immediate;
    this.claim = this.db.transaction(
      (tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision) => {
        const current = statements.readClaim.get(tenantId, kind, valueHash) as { revision: number } | undefined;
        const actual = current?.revision ?? 'no_stream';
        if (expected === 'no_stream' ? current !== undefined : expected !== actual) throw new WrongExpectedVersionError(`blind index ${kind}`, expected, actual);
        if (current === undefined) statements.insertClaim.run(tenantId, kind, valueHash, claim.customerId, claim.claimedAt);
        else statements.updateClaim.run(claim.customerId, claim.claimedAt, tenantId, kind, valueHash);
      },
    ).immediate;
  }

  async find(tenantId: string, customerId: string): Promise<CustomerKeyRecord | null> {
    const row = this.statements.findByCustomer.get(tenantId, customerId) as CustomerKeyRow | undefined;
    return row ? customerKeyRecordOf(row) : null;
  }

  async findByKeyId(tenantId: string, dataKeyId: string): Promise<CustomerKeyRecord | null> {
    const row = this.statements.findByKeyId.get(tenantId, dataKeyId) as CustomerKeyRow | undefined;
    return row ? customerKeyRecordOf(row) : null;
  }

  async insert(key: CustomerKeyRecord): Promise<CustomerKeyRecord> {
    this.statements.insertKey.run(key.tenantId, key.customerId, key.dataKeyId, key.tenantDataKeyId, key.wrappedKey, key.createdAt, key.erasedAt);
    return (await this.find(key.tenantId, key.customerId))!;
  }

  async destroy(tenantId: string, customerId: string, erasedAt: number): Promise<void> {
    this.destroyKey(tenantId, customerId, erasedAt);
  }

  async findReportKey(tenantId: string, reportId: string): Promise<ReportKeyRecord | null> {
    const row = this.statements.findReportKey.get(tenantId, reportId) as ReportKeyRow | undefined;
    return row ? reportKeyRecordOf(row) : null;
  }

  async insertReportKey(key: ReportKeyRecord): Promise<ReportKeyRecord> {
    this.statements.insertReportKey.run(key.tenantId, key.reportId, key.dataKeyId, key.tenantDataKeyId, key.wrappedKey, key.createdAt, key.erasedAt);
    return (await this.findReportKey(key.tenantId, key.reportId))!;
  }

  async destroyReportKey(tenantId: string, reportId: string, erasedAt: number): Promise<void> {
    this.destroyReportKeyNow(tenantId, reportId, erasedAt);
  }

  async readClaim(tenantId: string, kind: BlindIndexKind, valueHash: string): Promise<BlindIndexClaim | null> {
    const row = this.statements.readClaim.get(tenantId, kind, valueHash) as { customer_id: string; claimed_at: number; revision: number } | undefined;
    return row ? { customerId: row.customer_id, claimedAt: row.claimed_at, revision: row.revision } : null;
  }

  async writeClaim(tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision): Promise<void> {
    this.claim(tenantId, kind, valueHash, claim, expected);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function prepareStatements(db: Database.Database) {
  const keyColumns = 'tenant_id, customer_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at';
  const reportKeyColumns = 'tenant_id, report_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at';
  return {
    findByCustomer: db.prepare('SELECT * FROM customer_keys WHERE tenant_id = ? AND customer_id = ?'),
    findByKeyId: db.prepare('SELECT * FROM customer_keys WHERE tenant_id = ? AND data_key_id = ?'),
    insertKey: db.prepare(`INSERT INTO customer_keys (${keyColumns}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, customer_id) DO NOTHING`),
    eraseKey: db.prepare('UPDATE customer_keys SET wrapped_key = NULL, erased_at = COALESCE(erased_at, ?) WHERE tenant_id = ? AND customer_id = ?'),
    insertTombstone: db.prepare(`INSERT INTO customer_keys (${keyColumns}) VALUES (?, ?, NULL, NULL, NULL, ?, ?)`),
    findReportKey: db.prepare('SELECT * FROM report_keys WHERE tenant_id = ? AND report_id = ?'),
    insertReportKey: db.prepare(`INSERT INTO report_keys (${reportKeyColumns}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, report_id) DO NOTHING`),
    eraseReportKey: db.prepare('UPDATE report_keys SET wrapped_key = NULL, erased_at = COALESCE(erased_at, ?) WHERE tenant_id = ? AND report_id = ?'),
    insertReportTombstone: db.prepare(`INSERT INTO report_keys (${reportKeyColumns}) VALUES (?, ?, NULL, NULL, NULL, ?, ?)`),
    deleteClaims: db.prepare('DELETE FROM blind_index WHERE tenant_id = ? AND customer_id = ?'),
    readClaim: db.prepare('SELECT customer_id, claimed_at, revision FROM blind_index WHERE tenant_id = ? AND kind = ? AND value_hash = ?'),
    insertClaim: db.prepare('INSERT INTO blind_index (tenant_id, kind, value_hash, customer_id, claimed_at, revision) VALUES (?, ?, ?, ?, ?, 0)'),
    updateClaim: db.prepare('UPDATE blind_index SET customer_id = ?, claimed_at = ?, revision = revision + 1 WHERE tenant_id = ? AND kind = ? AND value_hash = ?'),
  };
}
