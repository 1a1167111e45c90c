import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { sha256HexInSlices } from '@ledger/platform';
import { assertTenantId, blobAddress, BlobCorruptedError, openVerified, readAddresses, type BlobSealer, type BlobStore, type StoredBlob } from './blob-store.port';

/** Directories of blobs: only the service's account may list or enter them (decision 0028). */
const DIRECTORY_MODE = 0o700;
/** Read-only and the owner's only: nothing in the service rewrites a blob in place. */
const BLOB_MODE = 0o400;

/**
 * Blobs as files under `rootDir` (the service uses `${dataDir}/blobs`), at
 * `<tenantId>/ab/cd/<address>` (`blobAddress`: the hash, or for a customer's
 * blob the hash over the customer and the hash): one tree per tenant, so the
 * same bytes are one blob per owner within a tenant and two across tenants,
 * each sealed under its owner's key; two levels of fan-out keep directories
 * small enough to list and back up even with millions of artifacts. A file
 * holds the sealer's envelope of the bytes, never the bytes themselves.
 *
 * A blob appears under its final name only complete and durable: the sealed
 * bytes go to a temporary file in the same directory, are fsynced, renamed
 * over the final name (atomic within one file system), and the directory is
 * fsynced so the rename itself survives a crash. A crash leaves at worst a
 * `.…tmp` file, which is never read as a blob.
 */
export class FilesystemBlobStore implements BlobStore {
  private readonly rootDir: string;

  constructor(
    rootDir: string,
    private readonly sealer: BlobSealer,
  ) {
    // Absolute, so the directories `mkdir` reports as created compare with ours.
    this.rootDir = resolve(rootDir);
  }

  async put(tenantId: string, bytes: Buffer, customerId?: string): Promise<StoredBlob> {
    assertTenantId(tenantId);
    const contentSha256 = await sha256HexInSlices(bytes);
    const address = blobAddress(contentSha256, customerId);
    // A repeated put (a retried job) writes nothing; one that finds the blob
    // damaged writes it again, which repairs it. Only the owner's own address
    // counts: a copy stored before decision 0048 at the tenant's is no reason
    // to leave the customer without one of its own.
    if (!(await this.holdsIntact(tenantId, address, contentSha256))) {
      await this.writeDurably(this.pathOf(tenantId, address), await this.sealer.seal(tenantId, address, bytes, customerId));
    }
    return { contentSha256, size: bytes.length };
  }

  async get(tenantId: string, contentSha256: string, customerId?: string): Promise<Buffer | null> {
    assertTenantId(tenantId);
    for (const address of readAddresses(contentSha256, customerId)) {
      const bytes = await this.read(tenantId, address, contentSha256);
      if (bytes !== null) return bytes;
    }
    return null;
  }

  async has(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean> {
    assertTenantId(tenantId);
    for (const address of readAddresses(contentSha256, customerId)) if (await isFile(this.pathOf(tenantId, address))) return true;
    return false;
  }

  async delete(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean> {
    assertTenantId(tenantId);
    const path = this.pathOf(tenantId, blobAddress(contentSha256, customerId));
    try {
      await unlink(path);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    // The removal must survive a crash as surely as a write does.
    await syncDirectory(dirname(path));
    return true;
  }

  async close(): Promise<void> {
    // Every read and write opens and closes its own file: nothing is held.
  }

  private pathOf(tenantId: string, address: string): string {
    return join(this.rootDir, tenantId, address.slice(0, 2), address.slice(2, 4), address);
  }

  private async read(tenantId: string, address: string, contentSha256: string): Promise<Buffer | null> {
    const sealed = await readIfPresent(this.pathOf(tenantId, address));
    return sealed === null ? null : openVerified(this.sealer, tenantId, address, contentSha256, sealed);
  }

  private async holdsIntact(tenantId: string, address: string, contentSha256: string): Promise<boolean> {
    try {
      return (await this.read(tenantId, address, contentSha256)) !== null;
    } catch (error) {
      if (error instanceof BlobCorruptedError) return false;
      throw error;
    }
  }

  private async writeDurably(path: string, bytes: Buffer): Promise<void> {
    const directory = dirname(path);
    const firstCreated = await mkdir(directory, { recursive: true, mode: DIRECTORY_MODE });
    // Unique per writer, so concurrent puts of the same bytes never share a
    // temporary file; each rename then installs identical content.
    const temporary = join(directory, `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, 'wx', BLOB_MODE);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      // The write's own error is the one worth reporting; a missing temporary file is expected here.
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await syncDirectory(directory);
    // A directory created just now is itself only an entry in its parent, which must be made durable too.
    if (firstCreated !== undefined) {
      for (let parent = dirname(directory); ; parent = dirname(parent)) {
        await syncDirectory(parent);
        if (parent === dirname(firstCreated) || parent === dirname(parent)) break;
      }
    }
  }
}

async function readIfPresent(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
