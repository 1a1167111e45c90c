import { ConfigError } from '@ledger/platform';
import baselineDocument from './baseline.profile.json';
import { parseRegulatoryProfile } from './parse-profiles';
import { RegulatoryProfile } from './regulatory-profile';
import type { RightsDeadlines } from '../rights/rights-clocks';

export const BASELINE_PROFILE_ID = 'baseline';

/**
 * The baseline goes through the same checks as a configured profile, so a bad
 * edit of baseline.profile.json fails at the first import (and in the unit
 * tests) instead of producing odd decisions.
 */
export const BASELINE_PROFILE: RegulatoryProfile = (() => {
  const problems: string[] = [];
  const profile = parseRegulatoryProfile(baselineDocument, 'baseline.profile.json', problems);
  if (!profile || profile.id !== BASELINE_PROFILE_ID) throw new ConfigError(`invalid baseline.profile.json:\n  ${problems.join('\n  ')}`);
  if (!profile.rightsDeadlines) throw new ConfigError('invalid baseline.profile.json: the baseline carries the terms of rights requests (rightsDeadlines)');
  return profile;
})();

/** The terms every rights request is held to: the baseline's (decision 0067). */
export const RIGHTS_DEADLINES: RightsDeadlines = BASELINE_PROFILE.rightsDeadlines!;

/**
 * The Regulatory Profiles the service knows: `baseline`, which ships with the
 * service as versioned data, and those an operator configures
 * (LEDGER_PROFILES_FILE). Pure: loadProfileCatalog reads the file.
 */
export class ProfileCatalog {
  private readonly byId: ReadonlyMap<string, RegulatoryProfile>;

  /** `configured` must not redefine baseline (parseProfilesDocument refuses it). */
  constructor(configured: readonly RegulatoryProfile[] = []) {
    if (configured.some((p) => p.id === BASELINE_PROFILE_ID)) throw new ConfigError('the baseline Regulatory Profile cannot be redefined');
    this.byId = new Map([BASELINE_PROFILE, ...configured].map((p) => [p.id, p]));
  }

  get(id: string): RegulatoryProfile | undefined {
    return this.byId.get(id);
  }

  /** baseline first, then the configured profiles in file order. */
  list(): RegulatoryProfile[] {
    return [...this.byId.values()];
  }
}
