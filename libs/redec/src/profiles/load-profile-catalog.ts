import { readFileSync } from 'node:fs';
import { ConfigError } from '@ledger/platform';
import { parseProfilesDocument } from './parse-profiles';
import { ProfileCatalog } from './profile-catalog';

/**
 * The catalog the service runs with: baseline, plus the profiles of
 * LEDGER_PROFILES_FILE when it is set. The only I/O of profiles; it runs at
 * start-up, so a missing or invalid file stops the service with a message
 * naming the file and every problem in it, instead of failing later on a
 * consent.
 */
export function loadProfileCatalog(profilesFile: string | undefined): ProfileCatalog {
  if (profilesFile === undefined) return new ProfileCatalog();
  let text: string;
  try {
    text = readFileSync(profilesFile, 'utf8');
  } catch (error) {
    throw new ConfigError(`LEDGER_PROFILES_FILE ${profilesFile} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`LEDGER_PROFILES_FILE ${profilesFile} is not valid JSON: ${(error as Error).message}`);
  }
  return new ProfileCatalog(parseProfilesDocument(document, `LEDGER_PROFILES_FILE ${profilesFile}`));
}
