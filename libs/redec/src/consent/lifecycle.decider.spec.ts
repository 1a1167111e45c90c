import { refusalOf } from '@ledger/platform/testing';
import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import { ConsentEvent } from './consent.events';
import { decideEndExtension, decideRegisterExtension, decideRevoke, RegisterExtensionRequest, RevokeRequest } from './lifecycle.decider';
import { ConsentState, evolveConsent } from './consent.state';
import { grantedAt, state, validUntil } from './testing/consent-fixtures';

const DAY = 86_400_000;
const revoke: RevokeRequest = { channel: 'digital', occurredAt: grantedAt + 5 * DAY, sourceType: 'direct', identityAssurance: 'client_authenticated' };
const revokeUnderBaseline = (consent: ConsentState | null, request: RevokeRequest, consentActionId: string, now: number) => decideRevoke(consent, BASELINE_PROFILE, request, consentActionId, now);
const credit = (overrides: Partial<RegisterExtensionRequest> = {}): RegisterExtensionRequest => ({
  customerTenantId: 'cus-1',
  objectiveCode: '02',
  creditOperationReference: 'op-1',
  creditGrantedAt: grantedAt + 2 * DAY,
  sourceSystem: 'core-loans',
  sourceReference: 'loan-77',
  ...overrides,
});
/** The consent after `events`, on top of `base`. */
const apply = (events: ConsentEvent[], base: ConsentState = state) => events.reduce<ConsentState>((s, e) => evolveConsent(s, e, 'ten-1')!, base);
describe('revocation', () => {
  it('is effective on a granted consent', () => {
    const [event] = revokeUnderBaseline(state, revoke, 'rev-1', grantedAt + 6 * DAY);
    expect(event).toEqual({
      type: 'RevocationRecorded',
      data: { redecConsentId: 'con-1', consentActionId: 'rev-1', internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0', revokedAt: revoke.occurredAt, channel: 'digital', sourceType: 'direct', identityAssurance: 'client_authenticated', effective: true, recordedAt: grantedAt + 6 * DAY },
    });
  });

  it('is kept without effect when a credit had been granted before it', () => {
    const extended = apply(decideRegisterExtension(state, credit(), 'x-1', grantedAt + 3 * DAY));
    expect(revokeUnderBaseline(extended, revoke, 'rev-1', grantedAt + 6 * DAY)[0]).toMatchObject({ data: { effective: false } });
  });

  it('refuses a second revocation, one after receipt, and one before the grant', () => {
    const revoked = apply(revokeUnderBaseline(state, revoke, 'rev-1', grantedAt + 6 * DAY));
    expect(refusalOf(() => revokeUnderBaseline(revoked, revoke, 'rev-2', grantedAt + 7 * DAY)).code).toBe('redec_consent_already_revoked');
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, occurredAt: grantedAt + 7 * DAY }, 'rev-1', grantedAt + 6 * DAY)).reason).toBe('occurred_at_after_receipt');
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, occurredAt: grantedAt - 1 }, 'rev-1', grantedAt + 6 * DAY)).reason).toBe('occurred_at_before_grant');
    expect(refusalOf(() => revokeUnderBaseline(null, revoke, 'rev-1', grantedAt)).code).toBe('NOT_FOUND');
  });

  it("holds the revoker's identity assurance to the consent's profile on the revocation's channel", () => {
    const now = grantedAt + 6 * DAY;
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, identityAssurance: 'self_declared' }, 'rev-1', now))).toMatchObject({
      code: 'VALIDATION_ERROR',
      reason: 'identity_assurance_not_accepted',
      errors: [{ field: 'identityAssurance', reason: 'identity_assurance_not_accepted' }],
    });
    // Accepted on in_person only, by the baseline.
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, identityAssurance: 'identity_document_verified' }, 'rev-1', now)).reason).toBe('identity_assurance_not_accepted');
    expect(revokeUnderBaseline(state, { ...revoke, channel: 'in_person', identityAssurance: 'identity_document_verified' }, 'rev-1', now)).toHaveLength(1);

    const digitalOnly = { ...BASELINE_PROFILE, channels: { digital: BASELINE_PROFILE.channels.digital } };
    expect(refusalOf(() => decideRevoke(state, digitalOnly, { ...revoke, channel: 'phone' }, 'rev-1', now)).reason).toBe('channel_not_supported_by_regulatory_profile');
    expect(refusalOf(() => decideRevoke(state, null, revoke, 'rev-1', now)).code).toBe('regulatory_profile_unavailable');
  });
});

describe('credit extensions', () => {
  it('extends a granted consent for the exact credit operation', () => {
    expect(decideRegisterExtension(state, credit(), 'x-1', grantedAt + 3 * DAY)).toEqual([
      {
        type: 'CreditExtensionRegistered',
        data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0', obligationSourceSystem: 'core-loans', objectiveCode: '02', creditOperationReference: 'op-1', creditGrantedAt: grantedAt + 2 * DAY, extendedAt: grantedAt + 3 * DAY, sourceSystem: 'core-loans', sourceReference: 'loan-77' },
      },
    ]);
  });

  it("refuses another customer's credit, an objective not granted, a credit outside the window, and a duplicate", () => {
    expect(refusalOf(() => decideRegisterExtension(state, credit({ customerTenantId: 'cus-9' }), 'x-1', grantedAt + 3 * DAY)).code).toBe('redec_credit_extension_customer_mismatch');
    expect(refusalOf(() => decideRegisterExtension(state, credit({ objectiveCode: '09' }), 'x-1', grantedAt + 3 * DAY)).code).toBe('redec_objective_not_granted');
    expect(refusalOf(() => decideRegisterExtension(state, credit({ creditGrantedAt: validUntil + 1 }), 'x-1', validUntil + DAY)).code).toBe('redec_credit_granted_outside_initial_window');
    expect(refusalOf(() => decideRegisterExtension(state, credit({ creditGrantedAt: grantedAt + 4 * DAY }), 'x-1', grantedAt + 3 * DAY)).reason).toBe('credit_granted_after_receipt');
    const extended = apply(decideRegisterExtension(state, credit(), 'x-1', grantedAt + 3 * DAY));
    expect(refusalOf(() => decideRegisterExtension(extended, credit(), 'x-2', grantedAt + 4 * DAY)).code).toBe('redec_credit_extension_already_registered');
  });

  describe('after an effective revocation', () => {
    const revoked = apply(revokeUnderBaseline(state, revoke, 'rev-1', grantedAt + 6 * DAY));

    it('corrects the revocation for a credit granted before it, with a sourceReference', () => {
      const events = decideRegisterExtension(revoked, credit(), 'x-1', grantedAt + 7 * DAY);
      expect(events.map((e) => e.type)).toEqual(['CreditExtensionRegistered', 'RevocationCorrected']);
      expect(apply(events, revoked).revocation).toMatchObject({ effective: false, correctedAt: grantedAt + 7 * DAY });
    });

    it('refuses the correction without a non-empty sourceReference', () => {
      for (const sourceReference of [undefined, '', '  ']) {
        expect(refusalOf(() => decideRegisterExtension(revoked, credit({ sourceReference }), 'x-1', grantedAt + 7 * DAY)).code).toBe(
          'redec_revocation_correction_requires_source_reference',
        );
      }
    });

    it('refuses a credit granted after the revocation', () => {
      expect(refusalOf(() => decideRegisterExtension(revoked, credit({ creditGrantedAt: revoke.occurredAt + 1 }), 'x-1', grantedAt + 7 * DAY)).code).toBe('redec_consent_revoked');
    });
  });

  describe('end', () => {
    const extended = apply(decideRegisterExtension(state, credit(), 'x-1', grantedAt + 3 * DAY));

    it('is reported once', () => {
      const events = decideEndExtension(extended, 'x-1', { endReason: 'obligation_extinguished' }, grantedAt + 9 * DAY);
      expect(events).toEqual([
        { type: 'CreditExtensionEnded', data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', endReason: 'obligation_extinguished', supersededByObligationReference: null, endedAt: grantedAt + 9 * DAY } },
      ]);
      const endedState = apply(events, extended);
      expect(refusalOf(() => decideEndExtension(endedState, 'x-1', { endReason: 'obligation_extinguished' }, grantedAt + 10 * DAY)).code).toBe('redec_credit_extension_already_ended');
    });

    it('takes supersededByObligationReference only, and always, with superseded_by_new_obligation', () => {
      expect(decideEndExtension(extended, 'x-1', { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-2' }, grantedAt + 9 * DAY)[0]).toMatchObject({
        data: { supersededByObligationReference: 'op-2' },
      });
      expect(refusalOf(() => decideEndExtension(extended, 'x-1', { endReason: 'superseded_by_new_obligation' }, grantedAt + 9 * DAY)).errors).toEqual([
        { field: 'supersededByObligationReference', reason: 'required' },
      ]);
      expect(refusalOf(() => decideEndExtension(extended, 'x-1', { endReason: 'acceleration_executed', supersededByObligationReference: 'op-2' }, grantedAt + 9 * DAY)).errors).toEqual([
        { field: 'supersededByObligationReference', reason: 'only_with_superseded_by_new_obligation' },
      ]);
      expect(refusalOf(() => decideEndExtension(extended, 'x-9', { endReason: 'obligation_extinguished' }, grantedAt + 9 * DAY)).code).toBe('NOT_FOUND');
    });
  });
});
