import { SealBrokenError } from './sealing';
import type { TenantKeySource } from './tenant-data-key';

/**
 * Encrypts blobs (certificates, supplied recordings and scans) under the
 * tenant's data key: the blob store's sealer. The envelope names the data
 * key and is bound to the tenant and the blob's name, so a blob copied to
 * another tenant or name does not open.
 */
export class BlobProtection {
  constructor(private readonly keys: TenantKeySource) {}

  async seal(tenantId: string, contentSha256: string, bytes: Buffer): Promise<Buffer> {
    return (await this.keys.dataKey(tenantId)).sealBlob(contentSha256, bytes);
  }

  /** The plaintext, or null when the envelope was altered or belongs elsewhere. */
  async open(tenantId: string, contentSha256: string, envelope: Buffer): Promise<Buffer | null> {
    const key = await this.keys.dataKey(tenantId);
    try {
      return key.openBlob(contentSha256, envelope);
    } catch (error) {
      if (error instanceof SealBrokenError) return null;
      throw error;
    }
  }
}
