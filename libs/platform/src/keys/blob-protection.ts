import { SealBrokenError } from './sealing';
import { CUSTOMER_KEY_PREFIX, blobEnvelopeKeyId, type CustomerKeySource, type TenantKeySource } from './tenant-data-key';

/**
 * Encrypts blobs (certificates, supplied recordings and scans): the blob
 * store's sealer. A customer's evidence is sealed under the customer's key
 * (decision 0035), anything else under the tenant's. The envelope names the
 * key and is bound to the tenant and the blob's name, so a blob copied to
 * another tenant or name does not open.
 */
export class BlobProtection {
  constructor(
    private readonly keys: TenantKeySource,
    private readonly customerKeys: CustomerKeySource,
  ) {}

  /** `address` is where the blob store keeps it (its hash, or for a customer's blob the hash over customer and hash, decision 0048). */
  async seal(tenantId: string, address: string, bytes: Buffer, customerId?: string): Promise<Buffer> {
    const key = customerId === undefined ? await this.keys.dataKey(tenantId) : await this.customerKeys.keyFor(tenantId, customerId);
    return key.sealBlob(address, bytes);
  }

  /** The plaintext, or null when the envelope was altered, belongs elsewhere, or its customer's key was destroyed. */
  async open(tenantId: string, address: string, envelope: Buffer): Promise<Buffer | null> {
    const keyId = blobEnvelopeKeyId(envelope);
    const key = keyId?.startsWith(CUSTOMER_KEY_PREFIX) ? await this.customerKeys.keyNamed(tenantId, keyId) : await this.keys.dataKey(tenantId);
    if (!key) return null;
    try {
      return await key.openBlob(address, envelope);
    } catch (error) {
      if (error instanceof SealBrokenError) return null;
      throw error;
    }
  }
}
