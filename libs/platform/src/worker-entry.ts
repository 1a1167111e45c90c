import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The built script a worker thread runs, `file` (a `.js` name) of the
 * directory `dir` (the caller's `__dirname`, in `apps/<app>/src` or
 * `libs/<lib>/src`): beside the caller once compiled (`npm start`, the
 * image); from the TypeScript sources (the tests, ts-node), the build of
 * those same sources in `dist/`, which `npm test` makes before jest runs (and
 * jest's global setup when jest is run alone). A worker runs JavaScript only.
 */
export function workerEntry(dir: string, file: string): string {
  const beside = join(dir, file);
  if (existsSync(beside)) return beside;
  const root = resolve(dir, '../../..');
  return join(root, 'dist', relative(root, dir), file);
}
