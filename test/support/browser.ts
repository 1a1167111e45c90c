import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';

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

/** One rule axe-core found broken, with how much it matters and where. */
export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The violations of WCAG 2.x A and AA (2.2 included) that axe-core finds on
 * the page as it is now, `serious` and `critical` only. The engine is
 * evaluated through the DevTools protocol, which the page's CSP does not
 * govern, so the page is checked under the policy it is served with.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate<AccessibilityViolation[]>(`(async () => {
    const results = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return results.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }));
  })()`);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
