export { BlobProtection } from './blob-protection';
export { masterKeys, unwrapDataKey, weakMasterKeyReason, wrapDataKey } from './master-keys';
export type { MasterKeys, WrappedDataKey } from './master-keys';
export { TenantDataKey } from './tenant-data-key';
export type { TenantKeySource } from './tenant-data-key';
