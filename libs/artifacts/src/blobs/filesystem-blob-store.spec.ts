import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BlobProtection } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import { BlobCorruptedError, InvalidBlobNameError } from './blob-store.port';
import { customerBlobsContract } from '../testing/customer-blobs.contract';
import { FilesystemBlobStore } from './filesystem-blob-store';
// The module object itself (not an interop copy), so that spying on `open` reaches the store's calls.
import fsPromises = require('node:fs/promises');

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('FilesystemBlobStore', () => {
  let root: string;
  let store: FilesystemBlobStore;
  const tenantId = randomUUID();
  const otherTenantId = randomUUID();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'blob-store-'));
    store = new FilesystemBlobStore(join(root, 'blobs'), new BlobProtection(ephemeralTenantKeys(), ephemeralCustomerKeys()));
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  const blobPath = (hash: string, tenant: string = tenantId) => join(root, 'blobs', tenant, hash.slice(0, 2), hash.slice(2, 4), hash);

  it("stores bytes under their SHA-256 in the tenant's fan-out directories and reads them back", async () => {
    const bytes = Buffer.from('%PDF-1.4 certificado ñ');
    const stored = await store.put(tenantId, bytes);

    expect(stored).toEqual({ contentSha256: sha256(bytes), size: bytes.length });
    expect(existsSync(blobPath(stored.contentSha256))).toBe(true);
    expect(await store.has(tenantId, stored.contentSha256)).toBe(true);
    expect(await store.get(tenantId, stored.contentSha256)).toEqual(bytes);
  });

  it('keeps only the sealed envelope on disk, read-only and in directories only the owner may enter', async () => {
    const bytes = Buffer.from('%PDF-1.4 certificado ñ');
    const { contentSha256 } = await store.put(tenantId, bytes);

    const onDisk = await readFile(blobPath(contentSha256));
    expect(onDisk.includes(Buffer.from('certificado'))).toBe(false);
    expect(onDisk.subarray(0, 4).toString('ascii')).toBe('LDGB');
    expect((await stat(blobPath(contentSha256))).mode & 0o777).toBe(0o400);
    for (let directory = dirname(blobPath(contentSha256)); directory !== root; directory = dirname(directory)) {
      expect((await stat(directory)).mode & 0o777).toBe(0o700);
    }
  });

  it('keeps tenants apart: the same bytes are a blob per tenant, and one copied into another tenant does not open there', async () => {
    const bytes = Buffer.from('grabación');
    const { contentSha256 } = await store.put(tenantId, bytes);
    expect(await store.has(otherTenantId, contentSha256)).toBe(false);
    expect(await store.get(otherTenantId, contentSha256)).toBeNull();

    await mkdir(dirname(blobPath(contentSha256, otherTenantId)), { recursive: true });
    await copyFile(blobPath(contentSha256), blobPath(contentSha256, otherTenantId));
    await expect(store.get(otherTenantId, contentSha256)).rejects.toThrow(/does not open under the tenant's key/);

    await store.put(otherTenantId, bytes);
    expect(await store.get(otherTenantId, contentSha256)).toEqual(bytes);
    expect(await store.get(tenantId, contentSha256)).toEqual(bytes);
  });

  it('stores empty bytes like any other', async () => {
    const stored = await store.put(tenantId, Buffer.alloc(0));
    expect(stored).toEqual({ contentSha256: sha256(Buffer.alloc(0)), size: 0 });
    expect(await store.get(tenantId, stored.contentSha256)).toEqual(Buffer.alloc(0));
  });

  it('answers null and false for a hash it does not hold', async () => {
    const absent = sha256(Buffer.from('never stored'));
    expect(await store.get(tenantId, absent)).toBeNull();
    expect(await store.has(tenantId, absent)).toBe(false);
  });

  it('is idempotent: the same bytes twice are one blob', async () => {
    const bytes = Buffer.from('audio');
    const first = await store.put(tenantId, bytes);
    const second = await store.put(tenantId, Buffer.from(bytes));

    expect(second).toEqual(first);
    expect(await readdir(dirname(blobPath(first.contentSha256)))).toEqual([
      first.contentSha256,
    ]);
  });

  it('survives concurrent puts of the same bytes, leaving one intact blob and no temporary file', async () => {
    const bytes = Buffer.alloc(256 * 1024, 7);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.put(tenantId, bytes)));
    const hash = sha256(bytes);

    expect(new Set(results.map((r) => r.contentSha256))).toEqual(new Set([hash]));
    expect(await readdir(dirname(blobPath(hash)))).toEqual([hash]);
    expect(await store.get(tenantId, hash)).toEqual(bytes);
  });

  it('detects a blob altered on disk instead of returning its bytes', async () => {
    const { contentSha256 } = await store.put(tenantId, Buffer.from('original'));
    await writeFile(blobPath(contentSha256), 'tampered');

    const read = store.get(tenantId, contentSha256);
    await expect(read).rejects.toBeInstanceOf(BlobCorruptedError);
    await expect(store.get(tenantId, contentSha256)).rejects.toThrow(`stored blob ${contentSha256} is corrupted`);
  });

  it('repairs a damaged blob when the same bytes are put again', async () => {
    const bytes = Buffer.from('original');
    const { contentSha256 } = await store.put(tenantId, bytes);
    await writeFile(blobPath(contentSha256), 'tampered');

    await store.put(tenantId, bytes);
    expect(await store.get(tenantId, contentSha256)).toEqual(bytes);
  });

  it('leaves nothing under the final name when the write fails midway', async () => {
    const bytes = Buffer.alloc(64 * 1024, 1);
    const hash = sha256(bytes);
    const realOpen = fsPromises.open;
    // Being root here, a read-only directory would not stop the write; a file
    // handle that writes half and then reports a full disk does.
    jest.spyOn(fsPromises, 'open').mockImplementation(async (path, flags, mode) => {
      const handle = await realOpen(path, flags, mode);
      if (flags === 'wx') {
        handle.writeFile = async (data) => {
          await handle.write((data as Buffer).subarray(0, (data as Buffer).length / 2));
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        };
      }
      return handle;
    });

    await expect(store.put(tenantId, bytes)).rejects.toThrow('ENOSPC');
    expect(existsSync(blobPath(hash))).toBe(false);
    expect(await readdir(dirname(blobPath(hash)))).toEqual([]);
    expect(await store.has(tenantId, hash)).toBe(false);
    expect(await store.get(tenantId, hash)).toBeNull();

    jest.restoreAllMocks();
    await store.put(tenantId, bytes);
    expect(await store.get(tenantId, hash)).toEqual(bytes);
  });

  it.each([
    ['a path traversal', '../../../../etc/passwd'],
    ['a traversal padded to 64 characters', `../${'a'.repeat(61)}`],
    ['upper-case hex', sha256(Buffer.from('x')).toUpperCase()],
    ['a short hash', 'abc123'],
    ['an empty string', ''],
  ])('refuses %s as a hash', async (_, hash) => {
    await expect(store.get(tenantId, hash)).rejects.toBeInstanceOf(InvalidBlobNameError);
    await expect(store.has(tenantId, hash)).rejects.toBeInstanceOf(InvalidBlobNameError);
  });

  it.each([
    ['a path traversal', '../../etc'],
    ['upper-case', tenantId.toUpperCase()],
    ['an empty string', ''],
  ])('refuses %s as a tenant', async (_, tenant) => {
    const hash = sha256(Buffer.from('x'));
    await expect(store.put(tenant, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidBlobNameError);
    await expect(store.get(tenant, hash)).rejects.toBeInstanceOf(InvalidBlobNameError);
    await expect(store.has(tenant, hash)).rejects.toBeInstanceOf(InvalidBlobNameError);
  });

  describe("a customer's blobs (decision 0048)", () => {
    customerBlobsContract(() => ({
      store: (sealer) => new FilesystemBlobStore(join(root, 'blobs'), sealer),
      addresses: async (tenant) => {
        const files = existsSync(join(root, 'blobs', tenant)) ? await readdir(join(root, 'blobs', tenant), { recursive: true, withFileTypes: true }) : [];
        return files.filter((entry) => entry.isFile()).map((entry) => entry.name);
      },
      writeAt: async (tenant, address, sealed) => {
        await mkdir(dirname(blobPath(address, tenant)), { recursive: true });
        await writeFile(blobPath(address, tenant), sealed);
      },
    }));
  });
});
