import { ConfigError } from '@ledger/platform';
import type { Channel } from '../consent/consent.events';
import { CHANNELS, ChannelRules, EVIDENCE_KINDS, RegulatoryProfile } from './regulatory-profile';

/** Profile ids are referenced from configurations and recorded in facts: short, stable, URL-safe. */
const PROFILE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Identifiers are normalized to lower-case types before any check, so a requirement must be written the same way. */
const IDENTIFIER_TYPE = /^[a-z0-9][a-z0-9_.-]{0,49}$/;
const MEDIUM_CODE = /^[0-9A-Za-z]{1,10}$/;
const ASSURANCE = /^[a-z][a-z0-9_]{0,63}$/;
/** The terms of a rights request a profile may carry (RightsDeadlines), each a whole number of days. */
const RIGHTS_DEADLINE_TERMS = ['answerCalendarDays', 'extensionCalendarDays', 'blockingBankingDays', 'complaintBusinessDays'] as const;

type Json = Record<string, unknown>;

/**
 * Reads `{ "profiles": [ <profile>, ... ] }` (each profile shaped like
 * baseline.profile.json) and returns the profiles, or throws one ConfigError
 * that lists every problem with its path, so an operator fixes the file in
 * one pass. Objects are closed: a misspelt key is an error, not a rule
 * silently left at its default.
 */
export function parseProfilesDocument(raw: unknown, source: string): RegulatoryProfile[] {
  const problems: string[] = [];
  const profiles: RegulatoryProfile[] = [];
  if (!isObject(raw)) {
    problems.push('the document must be a JSON object { "profiles": [...] }');
  } else {
    closed(raw, ['profiles'], '', problems);
    if (!Array.isArray(raw.profiles)) {
      problems.push('profiles: must be an array');
    } else {
      const seen = new Set<string>();
      raw.profiles.forEach((entry, index) => {
        const path = `profiles[${index}]`;
        const profile = parseRegulatoryProfile(entry, path, problems);
        if (!profile) return;
        if (profile.id === 'baseline') problems.push(`${path}.id: "baseline" ships with the service and cannot be redefined`);
        else if (seen.has(profile.id)) problems.push(`${path}.id: "${profile.id}" is defined more than once`);
        seen.add(profile.id);
        profiles.push(profile);
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid Regulatory Profiles in ${source}:\n  ${problems.join('\n  ')}`);
  return profiles;
}

/** One profile; appends a message per problem to `problems` and returns null when there is any. */
export function parseRegulatoryProfile(raw: unknown, path: string, problems: string[]): RegulatoryProfile | null {
  const before = problems.length;
  if (!isObject(raw)) {
    problems.push(`${path}: must be an object`);
    return null;
  }
  closed(
    raw,
    ['id', 'version', 'description', 'maxOccurredAtSkewMs', 'recordingToleranceMs', 'callerClockSkewMs', 'authorizationTtlMs', 'rightsDeadlines', 'mediumCodes', 'channels'],
    path,
    problems,
  );
  const id = matching(raw.id, PROFILE_ID, `${path}.id`, 'lower-case letters, digits, "-" or "_", at most 64', problems);
  integer(raw.version, 1, `${path}.version`, problems);
  if (raw.description !== undefined && typeof raw.description !== 'string') problems.push(`${path}.description: must be a string`);
  integer(raw.maxOccurredAtSkewMs, 1, `${path}.maxOccurredAtSkewMs`, problems);
  integer(raw.recordingToleranceMs, 0, `${path}.recordingToleranceMs`, problems);
  integer(raw.callerClockSkewMs, 0, `${path}.callerClockSkewMs`, problems);
  integer(raw.authorizationTtlMs, 1, `${path}.authorizationTtlMs`, problems);
  if (raw.rightsDeadlines !== undefined) {
    if (!isObject(raw.rightsDeadlines)) problems.push(`${path}.rightsDeadlines: must be an object with ${RIGHTS_DEADLINE_TERMS.join(', ')}`);
    else {
      closed(raw.rightsDeadlines, RIGHTS_DEADLINE_TERMS, `${path}.rightsDeadlines`, problems);
      for (const term of RIGHTS_DEADLINE_TERMS) integer(raw.rightsDeadlines[term], 1, `${path}.rightsDeadlines.${term}`, problems);
    }
  }

  if (!isObject(raw.mediumCodes)) {
    problems.push(`${path}.mediumCodes: must be an object with a code for each of ${EVIDENCE_KINDS.join(', ')}`);
  } else {
    closed(raw.mediumCodes, EVIDENCE_KINDS, `${path}.mediumCodes`, problems);
    for (const kind of EVIDENCE_KINDS) matching(raw.mediumCodes[kind], MEDIUM_CODE, `${path}.mediumCodes.${kind}`, '1 to 10 letters or digits', problems);
  }

  if (!isObject(raw.channels) || Object.keys(raw.channels).length === 0) {
    problems.push(`${path}.channels: must be an object with the rules of at least one of ${CHANNELS.join(', ')}`);
  } else {
    closed(raw.channels, CHANNELS, `${path}.channels`, problems);
    for (const channel of CHANNELS) {
      if (raw.channels[channel] !== undefined) parseChannelRules(raw.channels[channel], `${path}.channels.${channel}`, problems);
    }
  }
  if (problems.length > before || id === null) return null;
  const profile = raw as unknown as RegulatoryProfile;
  return {
    id,
    version: profile.version,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    maxOccurredAtSkewMs: profile.maxOccurredAtSkewMs,
    recordingToleranceMs: profile.recordingToleranceMs,
    callerClockSkewMs: profile.callerClockSkewMs,
    authorizationTtlMs: profile.authorizationTtlMs,
    ...(profile.rightsDeadlines !== undefined ? { rightsDeadlines: { ...profile.rightsDeadlines } } : {}),
    mediumCodes: { ...profile.mediumCodes },
    channels: Object.fromEntries(
      Object.entries(profile.channels).map(([channel, rules]) => [
        channel,
        {
          evidenceKinds: [...rules.evidenceKinds],
          identifiers: rules.identifiers.map((r) => ({ ...r })),
          revocationIdentityAssurance: [...rules.revocationIdentityAssurance],
        },
      ]),
    ) as Partial<Record<Channel, ChannelRules>>,
  };
}

function parseChannelRules(raw: unknown, path: string, problems: string[]): void {
  if (!isObject(raw)) {
    problems.push(`${path}: must be an object { "evidenceKinds": [...], "identifiers": [...], "revocationIdentityAssurance": [...] }`);
    return;
  }
  closed(raw, ['evidenceKinds', 'identifiers', 'revocationIdentityAssurance'], path, problems);
  const assurances = raw.revocationIdentityAssurance;
  if (!Array.isArray(assurances) || assurances.length === 0 || assurances.some((a) => typeof a !== 'string' || !ASSURANCE.test(a))) {
    problems.push(`${path}.revocationIdentityAssurance: must be a non-empty array of snake_case assurance levels, such as "client_authenticated"`);
  }
  const kinds = raw.evidenceKinds;
  if (!Array.isArray(kinds) || kinds.length === 0) {
    problems.push(`${path}.evidenceKinds: must be a non-empty array of ${EVIDENCE_KINDS.join(', ')}`);
  } else {
    kinds.forEach((kind: unknown, index) => {
      if (!(EVIDENCE_KINDS as readonly unknown[]).includes(kind)) problems.push(`${path}.evidenceKinds[${index}]: must be one of ${EVIDENCE_KINDS.join(', ')}`);
      else if (kinds.indexOf(kind) !== index) problems.push(`${path}.evidenceKinds[${index}]: "${String(kind)}" is listed twice`);
    });
  }
  if (!Array.isArray(raw.identifiers)) {
    problems.push(`${path}.identifiers: must be an array (empty when the channel requires no identifier)`);
    return;
  }
  const seen = new Set<string>();
  raw.identifiers.forEach((entry, index) => {
    const at = `${path}.identifiers[${index}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: must be an object { "type", "verificationRequired" }`);
      return;
    }
    closed(entry, ['type', 'system', 'verificationRequired', 'acceptedVerificationMethods'], at, problems);
    const type = matching(entry.type, IDENTIFIER_TYPE, `${at}.type`, 'a lower-case identifier type such as "rut"', problems);
    if (entry.system !== undefined && (typeof entry.system !== 'string' || entry.system.trim() === '' || entry.system !== entry.system.trim())) {
      problems.push(`${at}.system: must be a non-empty string without surrounding spaces`);
    }
    if (typeof entry.verificationRequired !== 'boolean') problems.push(`${at}.verificationRequired: must be true or false`);
    const methods = entry.acceptedVerificationMethods;
    if (methods !== undefined) {
      if (!Array.isArray(methods) || methods.length === 0 || methods.some((m) => typeof m !== 'string' || m.trim() === '')) {
        problems.push(`${at}.acceptedVerificationMethods: must be a non-empty array of method names`);
      } else if (entry.verificationRequired !== true) {
        problems.push(`${at}.acceptedVerificationMethods: only meaningful with "verificationRequired": true`);
      }
    }
    const key = `${type}\u0000${String(entry.system ?? '')}`;
    if (type !== null && seen.has(key)) problems.push(`${at}: the same identifier type and system is required twice`);
    seen.add(key);
  });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function closed(object: Json, allowed: readonly string[], path: string, problems: string[]): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) problems.push(`${path ? `${path}.` : ''}${key}: unknown property (expected ${allowed.join(', ')})`);
  }
}

function matching(value: unknown, pattern: RegExp, path: string, expected: string, problems: string[]): string | null {
  if (typeof value === 'string' && pattern.test(value)) return value;
  problems.push(`${path}: must be ${expected}`);
  return null;
}

function integer(value: unknown, min: number, path: string, problems: string[]): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) problems.push(`${path}: must be an integer of at least ${min}`);
}
