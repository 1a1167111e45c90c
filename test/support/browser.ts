import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');

/** Debian's chromium package; `npx playwright install` cannot download a browser on this network. */
export const CHROMIUM_PATH: string = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Without the background-networking flags Chromium keeps calling Google services
// (component updates, sync, QUIC probes) and floods the closed network with refused connections.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Containers often give /dev/shm 64 MB, too little for Chromium's renderer; Debian's wrapper script fails to detect it here.
  '--disable-dev-shm-usage',
];

/** Launches headless Debian Chromium through playwright-core with the flags this closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  // A missing browser is a broken environment, not a reason to skip: fail loudly.
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium; .ci/run does it) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Where tests keep screenshots: <repo>/test-artifacts (created on demand; git-ignored). */
export function artifactPath(fileName: string): string {
  const dir = join(ROOT, 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  return join(dir, fileName);
}
