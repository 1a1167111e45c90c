export { BlobProtection } from './blob-protection';
export { masterKeys, openInTransit, sealInTransit, unwrapDataKey, weakMasterKeyReason, wrapDataKey } from './master-keys';
export type { MasterKeys, WrappedDataKey } from './master-keys';
export { CUSTOMER_KEY_PREFIX, TenantDataKey, blobEnvelopeKeyId, protectedValueKeyId } from './tenant-data-key';
export type { CustomerKeySource, ReportKeySource, TenantKeySource } from './tenant-data-key';
