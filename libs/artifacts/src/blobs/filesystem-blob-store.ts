import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { assertContentSha256, BlobCorruptedError, sha256Hex, type BlobStore, type StoredBlob } from './blob-store.port';

/**
 * Blobs as files under `rootDir` (the service uses `${dataDir}/blobs`), at
 * `ab/cd/<hash>`: two levels of fan-out keep directories small enough to list
 * and back up even with millions of artifacts.
 *
 * A blob appears under its final name only complete and durable: the bytes go
 * to a temporary file in the same directory, are fsynced, renamed over the
 * final name (atomic within one file system), and the directory is fsynced so
 * the rename itself survives a crash. A crash leaves at worst a `.…tmp` file,
 * which is never read as a blob.
 */
export class FilesystemBlobStore implements BlobStore {
  private readonly rootDir: string;

  constructor(rootDir: string) {
    // Absolute, so the directories `mkdir` reports as created compare with ours.
    this.rootDir = resolve(rootDir);
  }

  async put(bytes: Buffer): Promise<StoredBlob> {
    const contentSha256 = sha256Hex(bytes);
    const path = this.pathOf(contentSha256);
    // A repeated put (a retried job) writes nothing; one that finds the blob
    // damaged writes it again, which repairs it.
    if (!(await this.holdsIntact(path, contentSha256))) await this.writeDurably(path, bytes);
    return { contentSha256, size: bytes.length };
  }

  async get(contentSha256: string): Promise<Buffer | null> {
    assertContentSha256(contentSha256);
    const bytes = await readIfPresent(this.pathOf(contentSha256));
    if (bytes === null) return null;
    const actual = sha256Hex(bytes);
    if (actual !== contentSha256) throw new BlobCorruptedError(contentSha256, actual);
    return bytes;
  }

  async has(contentSha256: string): Promise<boolean> {
    assertContentSha256(contentSha256);
    try {
      return (await stat(this.pathOf(contentSha256))).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  private pathOf(contentSha256: string): string {
    return join(this.rootDir, contentSha256.slice(0, 2), contentSha256.slice(2, 4), contentSha256);
  }

  private async holdsIntact(path: string, contentSha256: string): Promise<boolean> {
    const bytes = await readIfPresent(path);
    return bytes !== null && sha256Hex(bytes) === contentSha256;
  }

  private async writeDurably(path: string, bytes: Buffer): Promise<void> {
    const directory = dirname(path);
    const firstCreated = await mkdir(directory, { recursive: true });
    // Unique per writer, so concurrent puts of the same bytes never share a
    // temporary file; each rename then installs identical content.
    const temporary = join(directory, `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
    try {
      // Read-only: nothing in the service rewrites a blob in place.
      const handle = await open(temporary, 'wx', 0o444);
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
