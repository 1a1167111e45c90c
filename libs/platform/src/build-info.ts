import { version } from '../../../package.json';

/** What build is running, for `ledger --version` and the ledger_build_info metric. */
export interface BuildInfo {
  version: string;
  /** LEDGER_BUILD_COMMIT, set when the image is built (docker/Dockerfile); `unknown` otherwise. */
  commit: string;
  nodeVersion: string;
}

export function buildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  return { version, commit: env.LEDGER_BUILD_COMMIT || 'unknown', nodeVersion: process.version };
}
