import { BASELINE_PROFILE } from './profile-catalog';
import { IdentifierForCheck, RegulatoryProfile, acceptsEvidence, acceptsRevocation, checkIdentifiersForChannel, mediumCodeFor, supportsChannel } from './regulatory-profile';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const verification = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: 1_763_800_000_000 };
const rut = (v: IdentifierForCheck['verification'] = verification, system = 'cl-sii'): IdentifierForCheck => ({ system, type: 'rut', verification: v });
const email: IdentifierForCheck = { system: 'bank', type: 'email', verification: null };

/** A profile that requires a RUT of a given system verified with Clave Única on digital, nothing on phone, and has no in_person rules. */
const strict: RegulatoryProfile = {
  ...BASELINE_PROFILE,
  id: 'strict',
  channels: {
    digital: { evidenceKinds: ['electronic'], identifiers: [{ type: 'rut', system: 'cl-sii', verificationRequired: true, acceptedVerificationMethods: ['clave_unica'] }], revocationIdentityAssurance: ['client_authenticated'] },
    phone: { evidenceKinds: ['audio_recording'], identifiers: [], revocationIdentityAssurance: ['client_authenticated'] },
  },
};

describe('the baseline Regulatory Profile', () => {
  it('allows 7 calendar days of clock skew and 5 minutes of recording tolerance', () => {
    expect(BASELINE_PROFILE.maxOccurredAtSkewMs).toBe(7 * DAY);
    expect(BASELINE_PROFILE.recordingToleranceMs).toBe(5 * MINUTE);
  });

  it("gives the bank's clock 5 minutes of skew and an authorization 10 minutes of life", () => {
    expect(BASELINE_PROFILE.callerClockSkewMs).toBe(5 * MINUTE);
    expect(BASELINE_PROFILE.authorizationTtlMs).toBe(10 * MINUTE);
  });

  it.each([
    ['digital', 'electronic', true],
    ['digital', 'audio_recording', false],
    ['digital', 'physical_document', false],
    ['phone', 'audio_recording', true],
    ['phone', 'electronic', false],
    ['phone', 'physical_document', false],
    ['in_person', 'physical_document', true],
    ['in_person', 'electronic', true],
    ['in_person', 'audio_recording', false],
  ] as const)('on %s accepts %s evidence: %s', (channel, kind, accepted) => {
    expect(acceptsEvidence(BASELINE_PROFILE, channel, kind)).toBe(accepted);
  });

  it('derives the medium code from the evidence kind', () => {
    expect([mediumCodeFor(BASELINE_PROFILE, 'electronic'), mediumCodeFor(BASELINE_PROFILE, 'audio_recording'), mediumCodeFor(BASELINE_PROFILE, 'physical_document')]).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it.each(['digital', 'phone', 'in_person'] as const)('on %s requires a RUT with an asserted verification', (channel) => {
    expect(supportsChannel(BASELINE_PROFILE, channel)).toBe(true);
    expect(checkIdentifiersForChannel(BASELINE_PROFILE, channel, [email, rut()])).toEqual([]);
    expect(checkIdentifiersForChannel(BASELINE_PROFILE, channel, [email])).toEqual([{ field: 'identifiers', reason: 'required_identifier_missing' }]);
    expect(checkIdentifiersForChannel(BASELINE_PROFILE, channel, [email, rut(null)])).toEqual([{ field: 'identifiers[1].verification', reason: 'verification_required' }]);
  });

  it('accepts any verification method, but only with its whole provenance', () => {
    expect(checkIdentifiersForChannel(BASELINE_PROFILE, 'phone', [rut({ ...verification, method: 'security_questions' })])).toEqual([]);
    expect(checkIdentifiersForChannel(BASELINE_PROFILE, 'phone', [rut({ ...verification, sourceReference: ' ' })])).toEqual([
      { field: 'identifiers[0].verification', reason: 'verification_provenance_incomplete' },
    ]);
  });
});

describe('a configured Regulatory Profile', () => {
  it('restricts verification methods and the identifier system where it says so', () => {
    expect(checkIdentifiersForChannel(strict, 'digital', [rut()])).toEqual([]);
    expect(checkIdentifiersForChannel(strict, 'digital', [rut({ ...verification, method: 'sms_otp' })])).toEqual([
      { field: 'identifiers[0].verification.method', reason: 'verification_method_not_accepted' },
    ]);
    expect(checkIdentifiersForChannel(strict, 'digital', [rut(verification, 'bank')])).toEqual([{ field: 'identifiers', reason: 'required_identifier_missing' }]);
  });

  it('may require nothing on a channel', () => {
    expect(checkIdentifiersForChannel(strict, 'phone', [])).toEqual([]);
  });

  it('names the field the identifiers came from', () => {
    expect(checkIdentifiersForChannel(strict, 'digital', [rut(null)], 'customerId')).toEqual([{ field: 'customerId[0].verification', reason: 'verification_required' }]);
  });

  it('reports missing identifiers once however many are missing', () => {
    const twoRequired: RegulatoryProfile = {
      ...strict,
      channels: { phone: { evidenceKinds: ['audio_recording'], identifiers: [{ type: 'rut', verificationRequired: false }, { type: 'passport', verificationRequired: false }], revocationIdentityAssurance: ['client_authenticated'] } },
    };
    expect(checkIdentifiersForChannel(twoRequired, 'phone', [email])).toEqual([{ field: 'identifiers', reason: 'required_identifier_missing' }]);
  });

  it('accepts a revocation only with an identity assurance its channel lists', () => {
    expect(acceptsRevocation(BASELINE_PROFILE, 'digital', 'client_authenticated')).toBe(true);
    expect(acceptsRevocation(BASELINE_PROFILE, 'digital', 'identity_document_verified')).toBe(false);
    expect(acceptsRevocation(BASELINE_PROFILE, 'in_person', 'identity_document_verified')).toBe(true);
    expect(acceptsRevocation(BASELINE_PROFILE, 'digital', 'self_declared')).toBe(false);
    expect(acceptsRevocation(strict, 'in_person', 'client_authenticated')).toBe(false);
    expect(acceptsRevocation(strict, 'telegraph', 'client_authenticated')).toBe(false);
  });

  it('supports, and accepts evidence on, only the channels it has rules for', () => {
    expect(supportsChannel(strict, 'in_person')).toBe(false);
    expect(acceptsEvidence(strict, 'in_person', 'physical_document')).toBe(false);
    expect(checkIdentifiersForChannel(strict, 'in_person', [rut()])).toEqual([{ field: 'channel', reason: 'not_supported_by_regulatory_profile' }]);
  });
});
