export { CUSTOMER_KEY_TABLE } from './customer-key-table.port';
export type { BlindIndexClaim, BlindIndexKind, ClaimRevision, CustomerKeyRecord, CustomerKeyTable } from './customer-key-table.port';
export { CUSTOMER_KEYS_FILE_NAME, SqliteCustomerKeyTable, openCustomerKeyTable } from './sqlite-customer-key-table';
export { CustomerKeyring } from './customer-keyring';
