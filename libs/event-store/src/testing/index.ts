export { describeEventStoreContract, newEvent, readEveryEvent } from './event-store.contract';
export { countingReads } from './counting-reads';
export type { ContractOptions, OpenedStore } from './event-store.contract';
export { TEST_DATABASE_PREFIX, TEST_POSTGRES_URL, createTestDatabase, createTestDatabaseSync, dropAbandonedTestDatabases, newTestDatabaseName } from './postgres-database';
export type { TestDatabase } from './postgres-database';
export type { StoredEventRow } from './stored-event-row';
