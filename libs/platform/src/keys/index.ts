export { BlobProtection } from './blob-protection';
export { MASTER_KEY_BYTES, masterKey, masterKeys, unwrapDataKey, weakMasterKeyReason, wrapDataKey } from './master-keys';
export type { MasterKey, MasterKeys, WrappedDataKey } from './master-keys';
export { SealBrokenError } from './sealing';
export { TenantDataKey } from './tenant-data-key';
export type { TenantKeySource } from './tenant-data-key';
