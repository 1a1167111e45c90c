import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The data directory and what the service writes in it hold the ledger, the
 * master key and evidence: only the account that runs the service may read
 * them (decision 0028). Modes are set with chmod after creation, so they are
 * exactly these whatever the process umask.
 */
const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `path` (and missing parents) 0700. A directory that already exists
 * keeps the mode its owner gave it: a mount point or a volume may need group
 * access for backups, and the files inside are private anyway.
 */
export function ensurePrivateDirectory(path: string): void {
  const firstCreated = mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (firstCreated === undefined) return;
  for (let created = resolve(path); ; created = dirname(created)) {
    chmodSync(created, PRIVATE_DIRECTORY_MODE);
    if (created === resolve(firstCreated) || created === dirname(created)) break;
  }
}

/** Makes each of the service's own files that exists 0600 (one written by an earlier version is tightened too). */
export function restrictToOwner(...paths: string[]): void {
  for (const path of paths) if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}
