import { refusalOf } from '@ledger/platform/testing';
import { DomainError } from '@ledger/platform';
import { ConsentGranted, GrantEvidence } from './consent.events';
import { GrantInput, GrantPolicy, GrantableConfiguration, decideGrant, maskRut, normalizeRutField } from './grant.decider';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const now = Date.UTC(2026, 10, 20, 15, 0, 0);

const baseline: GrantPolicy = {
  profileId: 'baseline',
  maxOccurredAtSkewMs: 7 * DAY,
  recordingToleranceMs: 5 * MINUTE,
  acceptsEvidence: (channel, kind) =>
    ({ digital: ['electronic'], phone: ['audio_recording'], in_person: ['physical_document', 'electronic'] })[channel].includes(kind),
  mediumCodeFor: (kind) => ({ electronic: '1', audio_recording: '2', physical_document: '3' })[kind],
};

const configuration = (overrides: Partial<GrantableConfiguration> = {}): GrantableConfiguration => ({
  configurationId: 'cfg-1',
  templateKey: 'redec-credit-evaluation',
  version: 3,
  title: 'Consulta REDEC',
  text: 'Autorizo la consulta.',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec: {
    finalityCode: '2',
    objectiveCodes: ['02', '03'],
    scopes: [
      { scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' },
      { scopeId: 'redec-other', dataCategoryCode: 'redec.other' },
    ],
    targets: ['Banco Ejemplo'],
    obligationSourceSystem: 'core-loans',
    regulatoryProfile: 'baseline',
  },
  ...overrides,
});

const electronic: GrantEvidence = { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-77' } };
const audio = (recordedAt: number): GrantEvidence => ({
  kind: 'audio_recording',
  recordedAt,
  mediaType: 'audio/mpeg',
  content: { origin: 'held', contentSha256: 'a'.repeat(64), size: 1234 },
});

function given(overrides: Partial<GrantInput> = {}, request: Partial<GrantInput['request']> = {}): GrantInput {
  return {
    request: { occurredAt: now - 10 * MINUTE, sourceSystem: 'web-onboarding', sourceReference: 'capture-1', representation: null, evidence: electronic, ...request },
    requestSha256: 'hash-1',
    interaction: { interactionId: 'int-1', customerId: 'cus-1' },
    configuration: configuration(),
    policy: baseline,
    existing: null,
    capture: 'deferred_external',
    ids: { redecConsentId: 'con-1', consentActionId: 'act-1', internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0' },
    now,
    initialAccessValidUntil: (grantedAt) => grantedAt + 21 * DAY,
    ...overrides,
  };
}

function granted(input: GrantInput): ConsentGranted['data'] {
  const decision = decideGrant(input);
  if (decision.kind !== 'granted') throw new Error(`expected a grant, got ${decision.kind}`);
  return decision.event.data;
}

const refusal = (input: GrantInput): DomainError => refusalOf(() => decideGrant(input));

describe('grant', () => {
  it('records the grant with grantedAt = occurredAt and everything frozen from the configuration', () => {
    const grant = granted(given());
    expect(grant).toMatchObject({
      redecConsentId: 'con-1',
      consentActionId: 'act-1',
      internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
      customerId: 'cus-1',
      templateKey: 'redec-credit-evaluation',
      configurationVersion: 3,
      consentTitle: 'Consulta REDEC',
      consentText: 'Autorizo la consulta.',
      channel: 'digital',
      captureTiming: 'deferred_external',
      finalityCode: '2',
      objectiveCodes: ['02', '03'],
      grantedAt: now - 10 * MINUTE,
      recordedAt: now,
      initialAccessValidUntil: now - 10 * MINUTE + 21 * DAY,
      artifact: { origin: 'generated_pdf', status: 'pending', mediaType: 'application/pdf', contentSha256: null },
    });
    expect(grant.scopes).toHaveLength(2);
  });

  it('derives the medium from the evidence', () => {
    expect(granted(given()).mediumCode).toBe('1');
    const phone = given({ configuration: configuration({ channel: 'phone' }) }, { evidence: audio(now - 10 * MINUTE) });
    expect(granted(phone).mediumCode).toBe('2');
  });

  describe('occurredAt', () => {
    it('refuses an occurredAt later than the receipt', () => {
      const error = refusal(given({}, { occurredAt: now + 1 }));
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'occurred_at_after_receipt', errors: [{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }] });
    });

    it('accepts exactly the profile skew and refuses one millisecond more', () => {
      expect(granted(given({}, { occurredAt: now - 7 * DAY })).grantedAt).toBe(now - 7 * DAY);
      expect(refusal(given({}, { occurredAt: now - 7 * DAY - 1 })).reason).toBe('occurred_at_beyond_profile_skew');
    });

    it('uses the profile of the interaction, not a fixed 7 days', () => {
      const strict = { ...baseline, profileId: 'strict', maxOccurredAtSkewMs: DAY };
      expect(refusal(given({ policy: strict }, { occurredAt: now - 2 * DAY })).reason).toBe('occurred_at_beyond_profile_skew');
    });
  });

  describe('recordings and paper originals', () => {
    const phone = (evidence: GrantEvidence) => given({ configuration: configuration({ channel: 'phone' }) }, { occurredAt: now - 60 * MINUTE, evidence });

    it('accepts a recording within the tolerance on either side, refuses one beyond it', () => {
      expect(granted(phone(audio(now - 65 * MINUTE))).evidence).toMatchObject({ kind: 'audio_recording' });
      expect(granted(phone(audio(now - 55 * MINUTE))).evidence).toMatchObject({ kind: 'audio_recording' });
      expect(refusal(phone(audio(now - 65 * MINUTE - 1)))).toMatchObject({ reason: 'recording_outside_tolerance', errors: [{ field: 'evidence.recordedAt' }] });
      expect(refusal(phone(audio(now - 55 * MINUTE + 1))).reason).toBe('recording_outside_tolerance');
    });

    it('never compares the digitization date of a paper original', () => {
      const paper: GrantEvidence = {
        kind: 'physical_document',
        digitizedAt: now - 300 * DAY,
        mediaType: 'application/pdf',
        content: { origin: 'external_reference', externalReference: 's3://scans/1.pdf', contentSha256: 'b'.repeat(64) },
      };
      const grant = granted(given({ configuration: configuration({ channel: 'in_person' }) }, { evidence: paper }));
      expect(grant.grantedAt).toBe(now - 10 * MINUTE);
      expect(grant.artifact).toEqual({ origin: 'external_reference', status: 'ready', mediaType: 'application/pdf', contentSha256: 'b'.repeat(64) });
    });
  });

  it('refuses evidence the profile does not accept on the channel', () => {
    expect(refusal(given({}, { evidence: audio(now - 10 * MINUTE) }))).toMatchObject({ reason: 'evidence_kind_not_accepted_for_channel', errors: [{ field: 'evidence.kind' }] });
  });

  it('narrows scopes and objectives to a non-empty subset of the configuration', () => {
    const grant = granted(given({}, { scopeIds: ['redec-debt'], objectiveCodes: ['03'] }));
    expect(grant.scopes).toEqual([{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }]);
    expect(grant.objectiveCodes).toEqual(['03']);
    expect(refusal(given({}, { scopeIds: [] })).errors).toEqual([{ field: 'scopeIds', reason: 'required' }]);
    expect(refusal(given({}, { objectiveCodes: ['02', '09'] })).errors).toEqual([{ field: 'objectiveCodes[1]', reason: 'not_in_configuration' }]);
    expect(refusal(given({}, { scopeIds: ['redec-debt', 'redec-debt'] })).errors).toEqual([{ field: 'scopeIds[1]', reason: 'duplicate' }]);
  });

  it('answers an identical retry with the first grant and refuses a different second grant', () => {
    const first = granted(given());
    expect(decideGrant(given({ existing: first }))).toEqual({ kind: 'already_granted', grant: first });
    expect(refusal(given({ existing: first, requestSha256: 'hash-2' })).code).toBe('redec_interaction_already_granted');
  });

  it('needs a REDEC configuration captured outside the service', () => {
    expect(refusal(given({ configuration: configuration({ redec: null }) })).code).toBe('redec_configuration_required');
    expect(refusal(given({ configuration: configuration({ captureTiming: 'embedded' }) })).code).toBe('redec_capture_is_embedded');
  });

  it('records an embedded capture with the receipt of the acceptance as both grantedAt and recordedAt', () => {
    const embedded = configuration({ captureTiming: 'embedded' });
    const acceptedAt = now - 2000;
    const grant = granted(given({ configuration: embedded, capture: 'embedded' }, { occurredAt: acceptedAt }));
    expect(grant).toMatchObject({ captureTiming: 'embedded', grantedAt: acceptedAt, recordedAt: acceptedAt, initialAccessValidUntil: acceptedAt + 21 * DAY });
    expect(refusal(given({ capture: 'embedded' })).code).toBe('configuration_not_embedded');
  });

  it('normalizes the representative RUT, masks it for documents, and refuses an invalid one', () => {
    expect(normalizeRutField('12.345.678-5', 'representation.identifierRutInput')).toBe('12345678-5');
    expect(maskRut('12345678-5')).toBe('**.***.678-5');
    expect(() => normalizeRutField('12.345.678-0', 'representation.identifierRutInput')).toThrow(DomainError);
  });

  it('records the executive of a capture by phone, and refuses one on a digital capture', () => {
    const executive = { identifierRut: { hash: 'h-exec', ciphertext: 'c-exec' } };
    const phone = configuration({ channel: 'phone' });
    expect(granted(given({ configuration: phone }, { executive, evidence: audio(now - 10 * MINUTE) })).executive).toEqual(executive);
    expect(granted(given()).executive).toBeUndefined();
    expect(refusal(given({}, { executive })).errors).toEqual([{ field: 'executive', reason: 'executive_not_for_digital_channel' }]);
  });
});
