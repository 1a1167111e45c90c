export type { BlindIndexClaim, BlindIndexKind, ClaimRevision, CustomerKeyRecord, CustomerKeyTable } from './customer-key-table.port';
export { CUSTOMER_KEYS_FILE_NAME, SqliteCustomerKeyTable } from './sqlite-customer-key-table';
