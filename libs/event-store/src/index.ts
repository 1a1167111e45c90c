export * from './event-store.port';
export { canonicalJson } from './canonical-json';
export { computeEventHash, hashEventText, storedJson, verifyStream } from './integrity';
export type { HashedContent, IntegrityBreak } from './integrity';
export { verifyLedger, type LedgerVerification, type VerifyLedgerOptions, type VerifyLedgerProgress } from './verify-ledger';
export { SqliteEventStore } from './sqlite/sqlite-event-store';
export type { SqliteEventStoreOptions, SqliteEventStoreStats } from './sqlite/sqlite-event-store';
export { EsdbEventStore } from './esdb/esdb-event-store';
export { createEventStore, LedgerNotFoundError, SQLITE_FILE_NAME } from './create-event-store';
