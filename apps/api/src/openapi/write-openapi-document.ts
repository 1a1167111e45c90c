import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '@ledger/platform';
import { assertCompatible } from './compatibility';
import { describeApi } from './openapi';

/**
 * `npm run openapi`: writes the document the service serves under the
 * default configuration to openapi/openapi.json, the copy every API change
 * is reviewed against; refuses a change that breaks a field of the
 * committed copy without a major version (compatibility.ts).
 */
async function main(): Promise<void> {
  const target = resolve(process.argv[2] ?? 'openapi/openapi.json');
  // The defaults, not this shell's environment: the committed copy must not depend on who wrote it.
  // A key is passed only so that loading the configuration writes none; preview mode never uses it.
  const document = await describeApi(loadConfig({ LEDGER_MASTER_KEY: randomBytes(32).toString('hex'), LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex') }, () => undefined));
  if (existsSync(target)) assertCompatible(JSON.parse(readFileSync(target, 'utf8')), document);
  writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  process.stderr.write(`wrote ${target}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
