import { createHash, randomUUID } from 'node:crypto';
import { blobAddress } from './blob-store.port';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('blobAddress', () => {
  const hash = sha256(Buffer.from('evidencia'));

  it("is the hash itself for the tenant's blobs, and 64 hex characters of its own per customer", () => {
    const customerId = randomUUID();
    expect(blobAddress(hash)).toBe(hash);
    expect(blobAddress(hash, customerId)).toMatch(/^[0-9a-f]{64}$/);
    expect(blobAddress(hash, customerId)).toBe(blobAddress(hash, customerId));
    expect(blobAddress(hash, customerId)).not.toBe(hash);
    expect(blobAddress(hash, customerId)).not.toBe(blobAddress(hash, randomUUID()));
    expect(blobAddress(sha256(Buffer.from('otra')), customerId)).not.toBe(blobAddress(hash, customerId));
  });

  it('refuses what is not a content hash', () => {
    expect(() => blobAddress('../etc/passwd', randomUUID())).toThrow(/not a content hash/);
  });
});
