import { refusalOf } from '@ledger/platform/testing';
import type { GrantableConfiguration } from '@ledger/redec';
import { GeneralGrantInput, decideGeneralGrant, decideGeneralRevocation, evolveGeneralConsent, generalConsentStatus } from './general-consent.decider';
import { GeneralConsentGranted } from './general-consent.events';

const now = 1_795_000_000_000;
const configuration: GrantableConfiguration = {
  configurationId: 'cfg-1',
  templateKey: 'tos',
  version: 3,
  title: 'Términos',
  text: 'Acepto.',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec: null,
};
const given = (overrides: Partial<GeneralGrantInput> = {}, occurredAt = now - 60_000): GeneralGrantInput => ({
  request: { occurredAt, sourceSystem: 'web', sourceReference: 'tos-1', evidence: { kind: 'electronic', authentication: { method: 'password', reference: 'login-1' } } },
  requestSha256: 'hash-1',
  interaction: { interactionId: 'int-1', customerId: 'cus-1', configuration },
  capture: 'deferred_external',
  existing: null,
  ids: { consentId: 'con-1', consentActionId: 'act-1' },
  now,
  ...overrides,
});
function granted(input: GeneralGrantInput): GeneralConsentGranted {
  const decision = decideGeneralGrant(input);
  if (decision.kind !== 'granted') throw new Error('expected a grant');
  return decision.event;
}

describe('a general consent', () => {
  it('records the template version accepted, when, and the receipt', () => {
    expect(granted(given()).data).toMatchObject({ consentId: 'con-1', customerId: 'cus-1', templateKey: 'tos', configurationVersion: 3, grantedAt: now - 60_000, recordedAt: now });
  });

  it('takes the acceptance instant as both grantedAt and recordedAt when captured embedded', () => {
    const embedded = { ...configuration, captureTiming: 'embedded' as const };
    expect(granted(given({ interaction: { interactionId: 'int-1', customerId: 'cus-1', configuration: embedded }, capture: 'embedded' }, now - 2000)).data).toMatchObject({ grantedAt: now - 2000, recordedAt: now - 2000 });
    expect(refusalOf(() => decideGeneralGrant(given({ capture: 'embedded' }))).code).toBe('configuration_not_embedded');
    expect(refusalOf(() => decideGeneralGrant(given({ interaction: { interactionId: 'int-1', customerId: 'cus-1', configuration: embedded } }))).code).toBe('capture_is_embedded');
  });

  it('refuses a REDEC configuration and an occurredAt after the receipt', () => {
    const redec = { ...configuration, redec: { finalityCode: '2', objectiveCodes: ['02'], scopes: [], targets: [], obligationSourceSystem: 'x', regulatoryProfile: 'baseline' } };
    expect(refusalOf(() => decideGeneralGrant(given({ interaction: { interactionId: 'int-1', customerId: 'cus-1', configuration: redec } }))).code).toBe('general_configuration_required');
    expect(refusalOf(() => decideGeneralGrant(given({}, now + 1))).errors).toEqual([{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }]);
  });

  it('answers an identical retry with the first grant and refuses a different one', () => {
    const first = granted(given()).data;
    expect(decideGeneralGrant(given({ existing: first }))).toEqual({ kind: 'already_granted', grant: first });
    expect(refusalOf(() => decideGeneralGrant(given({ existing: first, requestSha256: 'hash-2' }))).code).toBe('consent_interaction_already_granted');
  });

  it('is granted until revoked once, between the grant and the receipt', () => {
    const state = evolveGeneralConsent(null, granted(given()), 't1')!;
    expect(generalConsentStatus(state)).toBe('granted');
    const revocation = { occurredAt: now - 1000, channel: 'digital' as const, sourceSystem: 'web', sourceReference: 'w-1' };
    const revoked = decideGeneralRevocation(state, revocation, 'act-2', now);
    expect(revoked.data).toEqual({ consentId: 'con-1', consentActionId: 'act-2', revokedAt: now - 1000, channel: 'digital', sourceSystem: 'web', sourceReference: 'w-1', recordedAt: now });
    const after = evolveGeneralConsent(state, revoked, 't1')!;
    expect(generalConsentStatus(after)).toBe('revoked');
    expect(refusalOf(() => decideGeneralRevocation(after, revocation, 'act-3', now)).code).toBe('consent_already_revoked');
    expect(refusalOf(() => decideGeneralRevocation(state, { ...revocation, occurredAt: now - 120_000 }, 'act-3', now)).errors).toEqual([{ field: 'occurredAt', reason: 'occurred_at_before_grant' }]);
    expect(refusalOf(() => decideGeneralRevocation(state, { ...revocation, occurredAt: now + 1 }, 'act-3', now)).errors).toEqual([{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }]);
  });
});
