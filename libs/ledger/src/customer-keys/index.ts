export { CUSTOMER_KEY_TABLE } from './customer-key-table.port';
export type { BlindIndexClaim, BlindIndexKind, ClaimRevision, CustomerKeyRecord, CustomerKeyTable, ReportKeyRecord } from './customer-key-table.port';
export { SqliteCustomerKeyTable } from './sqlite-customer-key-table';
export { PostgresCustomerKeyTable } from './postgres-customer-key-table';
export { CUSTOMER_KEYS_FILE_NAME, openCustomerKeyTable } from './open-customer-key-table';
export { CustomerKeyring } from './customer-keyring';
export { ReportKeyring, reportContentErased } from './report-keyring';
