/**
 * A customer's data key as the key table holds it: wrapped by the tenant's
 * data key, or destroyed. The row of a destroyed key stays as a tombstone
 * (no key material), so that no key is ever created again for an erased
 * customer and the erasure can be told from a customer that never had one.
 */
export interface CustomerKeyRecord {
  tenantId: string;
  customerId: string;
  /** `ck_` and 16 hex characters: every ciphertext names the key it was sealed under. Null for a customer erased before it needed a key. */
  dataKeyId: string | null;
  /** The tenant data key that wraps it (decision 0028); null with dataKeyId. */
  tenantDataKeyId: string | null;
  /** `iv.tag.ciphertext` (base64url); null once destroyed. */
  wrappedKey: string | null;
  createdAt: number;
  /** When the key was destroyed; null while it exists. */
  erasedAt: number | null;
}

/**
 * A report's key (decision 0045), kept like a customer's: wrapped by the
 * tenant's data key, or destroyed with the report's stored content (the row
 * stays as a tombstone, so no key is ever created again for that report).
 */
export interface ReportKeyRecord {
  tenantId: string;
  reportId: string;
  /** `rk_` and 16 hex characters; null for a report erased before it needed a key. */
  dataKeyId: string | null;
  tenantDataKeyId: string | null;
  /** `iv.tag.ciphertext` (base64url); null once destroyed. */
  wrappedKey: string | null;
  createdAt: number;
  erasedAt: number | null;
}

/** The key table's injection token. */
export const CUSTOMER_KEY_TABLE = Symbol('CUSTOMER_KEY_TABLE');

/** What is claimed unique in a tenant by a keyed hash: a userReference or an identifier. */
export type BlindIndexKind = 'user-reference' | 'identifier';

/** The revision a claim write expects: `no_stream` for a first claim, else the revision read. */
export type ClaimRevision = 'no_stream' | number;

/** Who holds the claim on a keyed hash; `revision` counts its changes (a takeover of an abandoned claim), like a stream's. */
export interface BlindIndexClaim {
  customerId: string;
  claimedAt: number;
  revision: number;
}

/**
 * The key table: customers' data keys, the blind index (the tenant-keyed
 * hashes that find a customer by userReference or identifier) and reports'
 * keys (decision 0045), kept OUTSIDE
 * the immutable, hash-chained event log, because erasure must be able to
 * delete them (decisions 0035, 0045). Anything written here can be destroyed; the
 * event log keeps only what stays true after an erasure: ciphertexts and
 * hashes under a customer's own key, useless once that key is gone.
 *
 * Claims behave like the reservation streams they replace: a write names the
 * revision it read (`no_stream` for a first claim) and fails with
 * WrongExpectedVersionError when another writer got there first, so the
 * resolution protocol is unchanged (resolve-customer.ts). Adapters: SQLite
 * (a file of its own beside the ledger); a PostgreSQL one follows with the
 * same two tables, `INSERT ... ON CONFLICT DO NOTHING` and `UPDATE ... WHERE
 * revision = $n`.
 */
export interface CustomerKeyTable {
  find(tenantId: string, customerId: string): Promise<CustomerKeyRecord | null>;
  findByKeyId(tenantId: string, dataKeyId: string): Promise<CustomerKeyRecord | null>;
  /** Records the key unless the customer already has a row (a key or a tombstone); answers the row that is kept. */
  insert(record: CustomerKeyRecord): Promise<CustomerKeyRecord>;
  /**
   * Destroys the customer's key (the row becomes a tombstone, written even
   * for a customer that never had a key) and deletes every blind index entry
   * naming the customer, in one transaction, and makes sure the bytes leave
   * the storage (not only the index of it). Repeating it changes nothing.
   */
  destroy(tenantId: string, customerId: string, erasedAt: number): Promise<void>;
  findReportKey(tenantId: string, reportId: string): Promise<ReportKeyRecord | null>;
  /** Records the report's key unless the report already has a row (a key or a tombstone); answers the row that is kept. */
  insertReportKey(record: ReportKeyRecord): Promise<ReportKeyRecord>;
  /** Destroys the report's key (a tombstone, written even for a report that never had one), leaving no bytes of it in the storage. Repeating it changes nothing. */
  destroyReportKey(tenantId: string, reportId: string, erasedAt: number): Promise<void>;
  readClaim(tenantId: string, kind: BlindIndexKind, valueHash: string): Promise<BlindIndexClaim | null>;
  /** Throws WrongExpectedVersionError when the claim is no longer at `expected`. */
  writeClaim(tenantId: string, kind: BlindIndexKind, valueHash: string, claim: { customerId: string; claimedAt: number }, expected: ClaimRevision): Promise<void>;
  close(): Promise<void>;
}

/** A `customer_keys` row as both adapters read it (PostgreSQL answers its bigints as strings). */
export interface CustomerKeyRow {
  tenant_id: string;
  customer_id: string;
  data_key_id: string | null;
  tenant_data_key_id: string | null;
  wrapped_key: string | null;
  created_at: number | string;
  erased_at: number | string | null;
}

/** The record of a `customer_keys` row, the same for every adapter. */
export function customerKeyRecordOf(row: CustomerKeyRow): CustomerKeyRecord {
  return {
    tenantId: row.tenant_id,
    customerId: row.customer_id,
    dataKeyId: row.data_key_id,
    tenantDataKeyId: row.tenant_data_key_id,
    wrappedKey: row.wrapped_key,
    createdAt: Number(row.created_at),
    erasedAt: row.erased_at === null ? null : Number(row.erased_at),
  };
}

/** A `report_keys` row as both adapters read it. */
export interface ReportKeyRow {
  tenant_id: string;
  report_id: string;
  data_key_id: string | null;
  tenant_data_key_id: string | null;
  wrapped_key: string | null;
  created_at: number | string;
  erased_at: number | string | null;
}

export function reportKeyRecordOf(row: ReportKeyRow): ReportKeyRecord {
  return {
    tenantId: row.tenant_id,
    reportId: row.report_id,
    dataKeyId: row.data_key_id,
    tenantDataKeyId: row.tenant_data_key_id,
    wrappedKey: row.wrapped_key,
    createdAt: Number(row.created_at),
    erasedAt: row.erased_at === null ? null : Number(row.erased_at),
  };
}
