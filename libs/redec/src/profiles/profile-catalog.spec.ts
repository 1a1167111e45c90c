import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@ledger/platform';
import { loadProfileCatalog } from './load-profile-catalog';
import { parseProfilesDocument } from './parse-profiles';
import { BASELINE_PROFILE, ProfileCatalog } from './profile-catalog';

const phoneOnly = {
  id: 'bank-phone',
  version: 2,
  description: 'Phone sales, identity checked by the call agent',
  maxOccurredAtSkewMs: 86_400_000,
  recordingToleranceMs: 60_000,
  callerClockSkewMs: 120_000,
  authorizationTtlMs: 300_000,
  mediumCodes: { electronic: '1', audio_recording: '2', physical_document: '3' },
  channels: { phone: { evidenceKinds: ['audio_recording'], identifiers: [{ type: 'rut', verificationRequired: true, acceptedVerificationMethods: ['agent_check'] }], revocationIdentityAssurance: ['caller_verified'] } },
};

function problemsOf(document: unknown): string {
  try {
    parseProfilesDocument(document, 'profiles.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the document to be refused');
}

describe('parseProfilesDocument', () => {
  it('reads profiles shaped like the baseline', () => {
    expect(parseProfilesDocument({ profiles: [phoneOnly] }, 'profiles.json')).toEqual([phoneOnly]);
  });

  it('lists every problem with its path and the file it is in', () => {
    const message = problemsOf({
      profiles: [
        {
          ...phoneOnly,
          id: 'Bad Id',
          version: 0,
          maxOccurredAtSkewMs: '7 days',
          recordingToleranceMs: -1,
          callerClockSkewMs: undefined,
          authorizationTtlMs: 0,
          mediumCodes: { electronic: '1', audio_recording: '' },
          colour: 'red',
          channels: {
            fax: {},
            phone: { evidenceKinds: ['audio_recording', 'email', 'audio_recording'], identifiers: [{ type: 'RUT', verificationRequired: 'yes' }] },
            digital: { evidenceKinds: [], identifiers: [{ type: 'rut', verificationRequired: false, acceptedVerificationMethods: ['x'] }], revocationIdentityAssurance: ['Client Authenticated'] },
          },
        },
      ],
    });
    expect(message).toMatch(/^invalid Regulatory Profiles in profiles\.json:/);
    for (const expected of [
      'profiles[0].colour: unknown property',
      'profiles[0].id: must be lower-case letters',
      'profiles[0].version: must be an integer of at least 1',
      'profiles[0].maxOccurredAtSkewMs: must be an integer of at least 1',
      'profiles[0].recordingToleranceMs: must be an integer of at least 0',
      'profiles[0].callerClockSkewMs: must be an integer of at least 0',
      'profiles[0].authorizationTtlMs: must be an integer of at least 1',
      'profiles[0].mediumCodes.audio_recording: must be 1 to 10 letters or digits',
      'profiles[0].mediumCodes.physical_document: must be 1 to 10 letters or digits',
      'profiles[0].channels.fax: unknown property',
      'profiles[0].channels.phone.evidenceKinds[1]: must be one of electronic, audio_recording, physical_document',
      'profiles[0].channels.phone.evidenceKinds[2]: "audio_recording" is listed twice',
      'profiles[0].channels.phone.identifiers[0].type: must be a lower-case identifier type',
      'profiles[0].channels.phone.identifiers[0].verificationRequired: must be true or false',
      'profiles[0].channels.digital.evidenceKinds: must be a non-empty array',
      'profiles[0].channels.digital.identifiers[0].acceptedVerificationMethods: only meaningful with "verificationRequired": true',
      'profiles[0].channels.phone.revocationIdentityAssurance: must be a non-empty array of snake_case assurance levels',
      'profiles[0].channels.digital.revocationIdentityAssurance: must be a non-empty array of snake_case assurance levels',
    ]) {
      expect(message).toContain(expected);
    }
  });

  it("carries the terms of rights requests as whole days, Ley 21.719's in the baseline, and refuses others (decision 0067)", () => {
    expect(BASELINE_PROFILE.rightsDeadlines).toEqual({ answerCalendarDays: 30, extensionCalendarDays: 30, blockingBankingDays: 2, complaintBusinessDays: 30 });
    expect(parseProfilesDocument({ profiles: [phoneOnly] }, 'profiles.json')[0].rightsDeadlines).toBeUndefined();
    const problems = problemsOf({ profiles: [{ ...phoneOnly, rightsDeadlines: { answerCalendarDays: 0, extensionCalendarDays: 30, blockingBankingDays: 2, complaintBusinessDays: 30, graceDays: 1 } }] });
    expect(problems).toContain('profiles[0].rightsDeadlines.answerCalendarDays: must be an integer of at least 1');
    expect(problems).toContain('profiles[0].rightsDeadlines.graceDays: unknown property');
  });

  it('refuses a profile that redefines baseline, and an id defined twice', () => {
    expect(problemsOf({ profiles: [{ ...phoneOnly, id: 'baseline' }] })).toContain('profiles[0].id: "baseline" ships with the service and cannot be redefined');
    expect(problemsOf({ profiles: [phoneOnly, phoneOnly] })).toContain('profiles[1].id: "bank-phone" is defined more than once');
  });

  it('refuses a document that is not { profiles: [...] }', () => {
    expect(problemsOf([phoneOnly])).toContain('the document must be a JSON object');
    expect(problemsOf({ profile: [phoneOnly] })).toContain('profile: unknown property');
    expect(problemsOf({ profiles: [{}], extra: 1 })).toContain('profiles[0].id: must be');
    expect(problemsOf({ profiles: [{ ...phoneOnly, channels: {} }] })).toContain('profiles[0].channels: must be an object with the rules of at least one of');
  });
});

describe('ProfileCatalog', () => {
  it('always holds baseline, then the configured profiles', () => {
    const [configured] = parseProfilesDocument({ profiles: [phoneOnly] }, 'profiles.json');
    const catalog = new ProfileCatalog([configured]);
    expect(catalog.get('baseline')).toBe(BASELINE_PROFILE);
    expect(catalog.get('bank-phone')).toEqual(phoneOnly);
    expect(catalog.get('unknown')).toBeUndefined();
    expect(catalog.list().map((p) => p.id)).toEqual(['baseline', 'bank-phone']);
    expect(new ProfileCatalog().list()).toEqual([BASELINE_PROFILE]);
  });

  it('cannot be built with another baseline', () => {
    expect(() => new ProfileCatalog([{ ...BASELINE_PROFILE, recordingToleranceMs: 1 }])).toThrow(ConfigError);
  });
});

describe('loadProfileCatalog', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'profiles-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('holds only baseline without a file', () => {
    expect(loadProfileCatalog(undefined).list()).toEqual([BASELINE_PROFILE]);
  });

  it('adds the profiles of the file', () => {
    expect(loadProfileCatalog(write('ok.json', JSON.stringify({ profiles: [phoneOnly] }))).get('bank-phone')).toEqual(phoneOnly);
  });

  it('fails with a message naming the file when it is missing, not JSON, or invalid', () => {
    const missing = join(dir, 'missing.json');
    expect(() => loadProfileCatalog(missing)).toThrow(`LEDGER_PROFILES_FILE ${missing} cannot be read: ENOENT`);
    const broken = write('broken.json', '{ "profiles": [');
    expect(() => loadProfileCatalog(broken)).toThrow(`LEDGER_PROFILES_FILE ${broken} is not valid JSON`);
    const invalid = write('invalid.json', JSON.stringify({ profiles: [{ ...phoneOnly, version: 'one' }] }));
    expect(() => loadProfileCatalog(invalid)).toThrow(`invalid Regulatory Profiles in LEDGER_PROFILES_FILE ${invalid}:\n  profiles[0].version: must be an integer of at least 1`);
  });
});
