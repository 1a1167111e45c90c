import type { Pool } from 'pg';
import { WrongExpectedVersionError } from '@ledger/event-store';
import { createPostgresPool, isUniqueViolation, migratePostgres, type PostgresMigrations } from '@ledger/platform';
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

/** The same tables as the SQLite key table's (sqlite-customer-key-table.ts). */
export const CUSTOMER_KEY_TABLE_MIGRATIONS: PostgresMigrations = {
  component: 'customer-key-table',
  steps: [
    `CREATE TABLE customer_keys (
       tenant_id          text   NOT NULL,
       customer_id        text   NOT NULL,
       data_key_id        text   UNIQUE,
       tenant_data_key_id text,
       wrapped_key        text,
       created_at         bigint NOT NULL,
       erased_at          bigint,
       PRIMARY KEY (tenant_id, customer_id)
     );
     CREATE TABLE blind_index (
       tenant_id   text    NOT NULL,
       kind        text    NOT NULL,
       value_hash  text    NOT NULL,
       customer_id text    NOT NULL,
       claimed_at  bigint  NOT NULL,
       revision    integer NOT NULL,
       CONSTRAINT blind_index_pkey PRIMARY KEY (tenant_id, kind, value_hash)
     );
     CREATE INDEX blind_index_by_customer ON blind_index (tenant_id, customer_id);`,
    `CREATE TABLE report_keys (
       tenant_id          text   NOT NULL,
       report_id          text   NOT NULL,
       data_key_id        text   UNIQUE,
       tenant_data_key_id text,
       wrapped_key        text,
       created_at         bigint NOT NULL,
       erased_at          bigint,
       PRIMARY KEY (tenant_id, report_id)
     );`,
  ],
};

/** Keys and claims are read once per customer and written once per new customer: a small pool. */
const POOL_SIZE = 4;


/**
 * The key table in the PostgreSQL database that holds the events, used
 * whenever the event store is PostgreSQL: every API and worker process, on
 * any machine, must see the same customer keys and the same blind index
 * (decision 0035). Claims use the revision column as the SQLite adapter does:
 * a first claim is an insert that the primary key refuses when another got
 * there first, a takeover an update at the revision read.
 *
 * A destroyed key's bytes stay in PostgreSQL's dead tuples until VACUUM and
 * in WAL, replicas and backups while they are kept: what they hold is the
 * customer's key wrapped by the tenant key, and the erasure's guarantee rests
 * on the row being gone from the live table (no process can unwrap what it
 * cannot find). docs/data-lifecycle.md tells operators to run VACUUM and
 * keep backup retention within the erasure policy.
 */
export class PostgresCustomerKeyTable implements CustomerKeyTable {
  private readonly pool: Pool;
  private readonly ready: Promise<void>;

  constructor(connectionString: string) {
    this.pool = createPostgresPool(connectionString, 'ledger-customer-keys', POOL_SIZE);
    this.ready = migratePostgres(this.pool, CUSTOMER_KEY_TABLE_MIGRATIONS);
    // Every call awaits `ready` and reports its failure; this only keeps it from being unhandled meanwhile.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the tables exist; rejects when the database cannot be reached or migrated. */
  opened(): Promise<void> {
    return this.ready;
  }

  async find(tenantId: string, customerId: string): Promise<CustomerKeyRecord | null> {
    await this.ready;
    const { rows } = await this.pool.query<CustomerKeyRow>('SELECT * FROM customer_keys WHERE tenant_id = $1 AND customer_id = $2', [tenantId, customerId]);
    return rows.length === 0 ? null : customerKeyRecordOf(rows[0]);
  }

  async findByKeyId(tenantId: string, dataKeyId: string): Promise<CustomerKeyRecord | null> {
    await this.ready;
    const { rows } = await this.pool.query<CustomerKeyRow>('SELECT * FROM customer_keys WHERE tenant_id = $1 AND data_key_id = $2', [tenantId, dataKeyId]);
    return rows.length === 0 ? null : customerKeyRecordOf(rows[0]);
  }

  async insert(key: CustomerKeyRecord): Promise<CustomerKeyRecord> {
    await this.ready;
    await this.pool.query(
      `INSERT INTO customer_keys (tenant_id, customer_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, customer_id) DO NOTHING`,
      [key.tenantId, key.customerId, key.dataKeyId, key.tenantDataKeyId, key.wrappedKey, key.createdAt, key.erasedAt],
    );
    return (await this.find(key.tenantId, key.customerId))!;
  }

  async destroy(tenantId: string, customerId: string, erasedAt: number): Promise<void> {
    await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // The tombstone of a customer that never needed a key is written too, so that none is created for it later.
      await client.query(
        `INSERT INTO customer_keys (tenant_id, customer_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at)
         VALUES ($1, $2, NULL, NULL, NULL, $3, $3)
         ON CONFLICT (tenant_id, customer_id) DO UPDATE SET wrapped_key = NULL, erased_at = COALESCE(customer_keys.erased_at, EXCLUDED.erased_at)`,
        [tenantId, customerId, erasedAt],
      );
      await client.query('DELETE FROM blind_index WHERE tenant_id = $1 AND customer_id = $2', [tenantId, customerId]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async findReportKey(tenantId: string, reportId: string): Promise<ReportKeyRecord | null> {
    await this.ready;
    const { rows } = await this.pool.query<ReportKeyRow>('SELECT * FROM report_keys WHERE tenant_id = $1 AND report_id = $2', [tenantId, reportId]);
    return rows.length === 0 ? null : reportKeyRecordOf(rows[0]);
  }

  async insertReportKey(key: ReportKeyRecord): Promise<ReportKeyRecord> {
    await this.ready;
    await this.pool.query(
      `INSERT INTO report_keys (tenant_id, report_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, report_id) DO NOTHING`,
      [key.tenantId, key.reportId, key.dataKeyId, key.tenantDataKeyId, key.wrappedKey, key.createdAt, key.erasedAt],
    );
    return (await this.findReportKey(key.tenantId, key.reportId))!;
  }

  async destroyReportKey(tenantId: string, reportId: string, erasedAt: number): Promise<void> {
    await this.ready;
    await this.pool.query(
      `INSERT INTO report_keys (tenant_id, report_id, data_key_id, tenant_data_key_id, wrapped_key, created_at, erased_at)
       VALUES ($1, $2, NULL, NULL, NULL, $3, $3)
       ON CONFLICT (tenant_id, report_id) DO UPDATE SET wrapped_key = NULL, erased_at = COALESCE(report_keys.erased_at, EXCLUDED.erased_at)`,
      [tenantId, reportId, erasedAt],
    );
  }

  async readClaim(tenantId: string, kind: BlindIndexKind, valueHash: string): Promise<BlindIndexClaim | null> {
    await this.ready;
    const { rows } = await this.pool.query<{ customer_id: string; claimed_at: string; revision: number }>(
      'SELECT customer_id, claimed_at, revision FROM blind_index WHERE tenant_id = $1 AND kind = $2 AND value_hash = $3',
      [tenantId, kind, valueHash],
    );
    return rows.length === 0 ? null : { customerId: rows[0].customer_id, claimedAt: Number(rows[0].claimed_at), revision: rows[0].revision };
  }

  async writeClaim(tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision): Promise<void> {
    await this.ready;
    const where = `blind index ${kind}`;
    if (expected === 'no_stream') {
      try {
        await this.pool.query('INSERT INTO blind_index (tenant_id, kind, value_hash, customer_id, claimed_at, revision) VALUES ($1, $2, $3, $4, $5, 0)', [
          tenantId,
          kind,
          valueHash,
          claim.customerId,
          claim.claimedAt,
        ]);
      } catch (error) {
        if (!isUniqueViolation(error, 'blind_index_pkey')) throw error;
        throw new WrongExpectedVersionError(where, expected, (await this.readClaim(tenantId, kind, valueHash))?.revision ?? 'no_stream');
      }
      return;
    }
    const { rowCount } = await this.pool.query(
      'UPDATE blind_index SET customer_id = $4, claimed_at = $5, revision = revision + 1 WHERE tenant_id = $1 AND kind = $2 AND value_hash = $3 AND revision = $6',
      [tenantId, kind, valueHash, claim.customerId, claim.claimedAt, expected],
    );
    if (rowCount === 0) throw new WrongExpectedVersionError(where, expected, (await this.readClaim(tenantId, kind, valueHash))?.revision ?? 'no_stream');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
