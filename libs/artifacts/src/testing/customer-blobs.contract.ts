import { createHash, randomUUID } from 'node:crypto';
import { BlobProtection } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import { blobAddress, type BlobSealer, type BlobStore } from '../blobs/blob-store.port';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What a blob store adapter gives the contract: a store over a sealer, and its storage as it is, below the port. */
export interface CustomerBlobsFixture {
  store(sealer: BlobSealer): BlobStore;
  /** The addresses the tenant's blobs are stored at (file names, or `content_sha256` values). */
  addresses(tenantId: string): Promise<string[]>;
  /** Writes sealed bytes at an address as an earlier version of the store did, or as an intruder would. */
  writeAt(tenantId: string, address: string, sealed: Buffer): Promise<void>;
}

/**
 * Decision 0048, on every blob store adapter (file system, PostgreSQL): a
 * customer's blobs are held per customer, so the same bytes supplied by two
 * customers are two blobs under two keys; blobs stored before, at the
 * tenant's address, are still read.
 */
export function customerBlobsContract(fixture: () => CustomerBlobsFixture): void {
  let customerKeys: ReturnType<typeof ephemeralCustomerKeys>;
  let sealer: BlobSealer;
  let store: BlobStore;
  let given: CustomerBlobsFixture;
  let tenantId: string;
  const first = randomUUID();
  const second = randomUUID();

  beforeEach(() => {
    given = fixture();
    customerKeys = ephemeralCustomerKeys();
    sealer = new BlobProtection(ephemeralTenantKeys(), customerKeys);
    store = given.store(sealer);
    tenantId = randomUUID();
  });

  it("keeps the same bytes of two customers as two blobs, each under its own customer's key: erasing one leaves the other's readable", async () => {
    const bytes = Buffer.from('%PDF-1.4 mandato firmado');
    const hash = sha256(bytes);
    expect(await store.put(tenantId, bytes, first)).toEqual({ contentSha256: hash, size: bytes.length });
    expect(await store.put(tenantId, bytes, second)).toEqual({ contentSha256: hash, size: bytes.length });
    expect((await given.addresses(tenantId)).sort()).toEqual([blobAddress(hash, first), blobAddress(hash, second)].sort());

    customerKeys.erase(tenantId, first);
    expect(await store.delete(tenantId, hash, first)).toBe(true);
    expect(await store.get(tenantId, hash, first)).toBeNull();
    expect(await store.has(tenantId, hash, first)).toBe(false);
    expect(await store.get(tenantId, hash, second)).toEqual(bytes);
    expect(await store.has(tenantId, hash, second)).toBe(true);
    expect(await store.delete(tenantId, hash, first)).toBe(false);
  });

  it("does not open one customer's blob at another customer's address", async () => {
    const bytes = Buffer.from('grabación');
    const hash = sha256(bytes);
    await store.put(tenantId, bytes, first);
    await given.writeAt(tenantId, blobAddress(hash, second), await sealer.seal(tenantId, blobAddress(hash, first), bytes, first));
    await expect(store.get(tenantId, hash, second)).rejects.toThrow(/does not open/);
  });

  it('reads a blob stored before decision 0048 at the tenant address, under the customer key; a put gives the customer its own, and a delete of its own leaves that one', async () => {
    const bytes = Buffer.from('escaneo guardado por la versión anterior');
    const hash = sha256(bytes);
    // As the store wrote it then: named by the plain hash, sealed under the customer's key.
    await given.writeAt(tenantId, hash, await sealer.seal(tenantId, hash, bytes, first));

    expect(await store.get(tenantId, hash, first)).toEqual(bytes);
    expect(await store.has(tenantId, hash, first)).toBe(true);
    expect(await store.get(tenantId, hash, second)).toEqual(bytes);

    await store.put(tenantId, bytes, second);
    expect((await given.addresses(tenantId)).sort()).toEqual([hash, blobAddress(hash, second)].sort());
    customerKeys.erase(tenantId, first);
    expect(await store.get(tenantId, hash, second)).toEqual(bytes);
    await expect(store.get(tenantId, hash, first)).rejects.toThrow(/does not open/);

    expect(await store.delete(tenantId, hash, second)).toBe(true);
    expect(await given.addresses(tenantId)).toEqual([hash]);
    expect(await store.delete(tenantId, hash)).toBe(true);
    expect(await given.addresses(tenantId)).toEqual([]);
  });
}
