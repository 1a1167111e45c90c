import { refusalOf } from '@ledger/platform/testing';
import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import { ConsentEvent } from './consent.events';
import {
  EndExtensionRequest,
  ObligationElsewhere,
  RegisterExtensionRequest,
  RevokeRequest,
  decideAnnulExtension,
  decideAnnulExtensionEnd,
  decideEndExtension,
  decideRegisterExtension,
  decideRevoke,
} from './lifecycle.decider';
import { ConsentState, evolveConsent } from './consent.state';
import { revocationView } from './regulatory-representation';
import { facts, givenConsent, grantedAt, state, validUntil } from './testing/consent-fixtures';

const DAY = 86_400_000;
const revoke: RevokeRequest = { channel: 'digital', occurredAt: grantedAt + 5 * DAY, sourceType: 'direct', identityAssurance: 'client_authenticated' };
const revokeUnderBaseline = (consent: ConsentState | null, request: RevokeRequest, now: number) => decideRevoke(consent, BASELINE_PROFILE, request, 'rev-1', now);
const credit = (overrides: Partial<RegisterExtensionRequest> = {}): RegisterExtensionRequest => ({
  customerTenantId: 'cus-1',
  objectiveCode: '02',
  creditOperationReference: 'op-1',
  creditGrantedAt: grantedAt + 2 * DAY,
  sourceSystem: 'core-loans',
  sourceReference: 'loan-77',
  ...overrides,
});
const nowhereElse: ObligationElsewhere = { extensionEnded: false };
const register = (consent: ConsentState, request: RegisterExtensionRequest, now: number, id = 'x-1', elsewhere = nowhereElse) => decideRegisterExtension(consent, elsewhere, request, id, now);
const end = (consent: ConsentState, request: EndExtensionRequest, now: number, id = 'x-1') => decideEndExtension(consent, BASELINE_PROFILE, id, request, now);
const annulment = { reason: 'registered on the wrong consent', sourceReference: 'ticket-9' };
/** The consent after `events`, on top of `base`. */
const apply = (events: ConsentEvent[], base: ConsentState = state) => events.reduce<ConsentState>((s, e) => evolveConsent(s, e, 'ten-1')!, base);
const types = (events: ConsentEvent[]) => events.map((e) => e.type);

describe('revocation', () => {
  const revokeAt = (request: RevokeRequest, now = grantedAt + 6 * DAY) => (consent: ConsentState | null) => revokeUnderBaseline(consent, request, now);
  const extension = facts.extension('x-1', 'op-1', grantedAt + 2 * DAY);

  it('is effective on a granted consent', () => {
    givenConsent()
      .when(revokeAt(revoke))
      .then([
        {
          type: 'RevocationRecorded',
          data: { redecConsentId: 'con-1', consentActionId: 'rev-1', internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0', revokedAt: revoke.occurredAt, channel: 'digital', sourceType: 'direct', identityAssurance: 'client_authenticated', effective: true, recordedAt: grantedAt + 6 * DAY },
        },
      ]);
  });

  it('is kept without effect while the extension of a credit granted before it is active', () => {
    givenConsent(extension).when(revokeAt(revoke)).thenMatches([{ data: { effective: false } }]);
  });

  it('is effective when the only active extension is of a credit granted at or after it, reported first (decision 0054)', () => {
    // Back-dated before the credit: the credit came after the data subject revoked, so it keeps nothing alive.
    givenConsent(extension).when(revokeAt({ ...revoke, occurredAt: grantedAt + DAY })).thenMatches([{ data: { effective: true } }]);
    // The same millisecond: what stops access wins.
    givenConsent(extension).when(revokeAt({ ...revoke, occurredAt: grantedAt + 2 * DAY })).thenMatches([{ data: { effective: true } }]);
  });

  it('is effective once the only extension has ended', () => {
    givenConsent(extension, facts.extensionEnded('x-1', grantedAt + 4 * DAY)).when(revokeAt(revoke)).thenMatches([{ data: { effective: true } }]);
  });

  it('refuses a second revocation, one after receipt, one before the grant, and one further back than the profile allows', () => {
    givenConsent(facts.revocation(revoke.occurredAt, true)).when(revokeAt(revoke, grantedAt + 7 * DAY)).thenRefused('redec_consent_already_revoked');
    givenConsent().when(revokeAt({ ...revoke, occurredAt: grantedAt + 7 * DAY })).thenRefused('VALIDATION_ERROR', 'occurred_at_after_receipt');
    givenConsent().when(revokeAt({ ...revoke, occurredAt: grantedAt - 1 })).thenRefused('VALIDATION_ERROR', 'occurred_at_before_grant');
    const now = grantedAt + 20 * DAY;
    expect(revokeUnderBaseline(state, { ...revoke, occurredAt: now - BASELINE_PROFILE.maxOccurredAtSkewMs }, now)).toHaveLength(1);
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, occurredAt: now - BASELINE_PROFILE.maxOccurredAtSkewMs - 1 }, now))).toMatchObject({
      reason: 'occurred_at_beyond_profile_skew',
      errors: [{ field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' }],
    });
    expect(refusalOf(() => revokeUnderBaseline(null, revoke, grantedAt)).code).toBe('NOT_FOUND');
  });

  it("holds the revoker's identity assurance to the consent's profile on the revocation's channel", () => {
    const now = grantedAt + 6 * DAY;
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, identityAssurance: 'self_declared' }, now))).toMatchObject({
      code: 'VALIDATION_ERROR',
      reason: 'identity_assurance_not_accepted',
      errors: [{ field: 'identityAssurance', reason: 'identity_assurance_not_accepted' }],
    });
    // Accepted on in_person only, by the baseline.
    expect(refusalOf(() => revokeUnderBaseline(state, { ...revoke, identityAssurance: 'identity_document_verified' }, now)).reason).toBe('identity_assurance_not_accepted');
    expect(revokeUnderBaseline(state, { ...revoke, channel: 'in_person', identityAssurance: 'identity_document_verified' }, now)).toHaveLength(1);

    const digitalOnly = { ...BASELINE_PROFILE, channels: { digital: BASELINE_PROFILE.channels.digital } };
    expect(refusalOf(() => decideRevoke(state, digitalOnly, { ...revoke, channel: 'phone' }, 'rev-1', now)).reason).toBe('channel_not_supported_by_regulatory_profile');
    expect(refusalOf(() => decideRevoke(state, null, revoke, 'rev-1', now)).code).toBe('regulatory_profile_unavailable');
  });
});

describe('credit extensions', () => {
  it('extends a granted consent for the exact credit operation', () => {
    expect(register(state, credit(), grantedAt + 3 * DAY)).toEqual([
      {
        type: 'CreditExtensionRegistered',
        data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0', obligationSourceSystem: 'core-loans', objectiveCode: '02', creditOperationReference: 'op-1', creditGrantedAt: grantedAt + 2 * DAY, extendedAt: grantedAt + 3 * DAY, sourceSystem: 'core-loans', sourceReference: 'loan-77' },
      },
    ]);
  });

  it("refuses another customer's credit, an objective not granted, a credit outside the window, and a duplicate", () => {
    expect(refusalOf(() => register(state, credit({ customerTenantId: 'cus-9' }), grantedAt + 3 * DAY)).code).toBe('redec_credit_extension_customer_mismatch');
    expect(refusalOf(() => register(state, credit({ objectiveCode: '09' }), grantedAt + 3 * DAY)).code).toBe('redec_objective_not_granted');
    expect(refusalOf(() => register(state, credit({ creditGrantedAt: validUntil + 1 }), validUntil + DAY)).code).toBe('redec_credit_granted_outside_initial_window');
    expect(refusalOf(() => register(state, credit({ creditGrantedAt: grantedAt + 4 * DAY }), grantedAt + 3 * DAY)).reason).toBe('credit_granted_after_receipt');
    const extended = apply(register(state, credit(), grantedAt + 3 * DAY));
    expect(refusalOf(() => register(extended, credit(), grantedAt + 4 * DAY, 'x-2')).code).toBe('redec_credit_extension_already_registered');
  });

  it('takes the customer id as issued, a UUID in any case', () => {
    const issued = '3f2b8c1e-7d4a-4e2b-9c1d-5a6b7c8d9e0f';
    const ofUuidCustomer = { ...state, grant: { ...state.grant, customerId: issued } };
    expect(register(ofUuidCustomer, credit({ customerTenantId: issued.toUpperCase() }), grantedAt + 3 * DAY)).toHaveLength(1);
    expect(refusalOf(() => register(ofUuidCustomer, credit({ customerTenantId: `${issued} ` }), grantedAt + 3 * DAY)).code).toBe('redec_credit_extension_customer_mismatch');
  });

  describe('after a revocation', () => {
    const revoked = apply(revokeUnderBaseline(state, revoke, grantedAt + 6 * DAY));
    const extended = apply(register(state, credit({ creditOperationReference: 'op-0' }), grantedAt + 3 * DAY, 'x-0'));
    const kept = apply(revokeUnderBaseline(extended, revoke, grantedAt + 6 * DAY), extended);

    it('corrects an effective revocation for a credit granted before it, with a sourceReference', () => {
      const events = register(revoked, credit(), grantedAt + 7 * DAY);
      expect(types(events)).toEqual(['CreditExtensionRegistered', 'RevocationCorrected']);
      expect(revocationView(apply(events, revoked))).toMatchObject({ effective: false, effectiveAt: null, correctedAt: grantedAt + 7 * DAY });
    });

    it('refuses the correction without a non-empty sourceReference', () => {
      for (const sourceReference of [undefined, '', '  ']) {
        expect(refusalOf(() => register(revoked, credit({ sourceReference }), grantedAt + 7 * DAY)).code).toBe('redec_revocation_correction_requires_source_reference');
      }
    });

    it('registers a credit granted before a kept revocation without a correction, and with a sourceReference too', () => {
      expect(types(register(kept, credit(), grantedAt + 7 * DAY))).toEqual(['CreditExtensionRegistered']);
      expect(refusalOf(() => register(kept, credit({ sourceReference: ' ' }), grantedAt + 7 * DAY)).code).toBe('redec_revocation_correction_requires_source_reference');
    });

    it.each([
      ['an effective revocation', revoked],
      ['a revocation kept without effect', kept],
    ])('refuses a credit granted at or after %s', (_, consent) => {
      for (const creditGrantedAt of [revoke.occurredAt, revoke.occurredAt + 1]) {
        expect(refusalOf(() => register(consent, credit({ creditGrantedAt }), grantedAt + 7 * DAY))).toMatchObject({ kind: 'unprocessable', code: 'redec_credit_granted_after_revocation' });
      }
    });
  });

  describe('of an obligation already used', () => {
    const extended = apply(register(state, credit(), grantedAt + 3 * DAY));
    const ended = apply(end(extended, { endReason: 'obligation_extinguished' }, grantedAt + 4 * DAY), extended);
    const superseded = apply(end(extended, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-2' }, grantedAt + 4 * DAY), extended);

    it('refuses an obligation whose extension ended on this consent, or on any consent of the tenant', () => {
      expect(refusalOf(() => register(ended, credit(), grantedAt + 5 * DAY, 'x-2'))).toMatchObject({ kind: 'conflict', code: 'redec_credit_extension_already_ended' });
      expect(refusalOf(() => register(state, credit(), grantedAt + 5 * DAY, 'x-2', { extensionEnded: true }))).toMatchObject({ kind: 'conflict', code: 'redec_credit_extension_already_ended' });
    });

    it('refuses the obligation that superseded one of the consent\'s: it does not inherit the consent', () => {
      expect(refusalOf(() => register(superseded, credit({ creditOperationReference: 'op-2' }), grantedAt + 5 * DAY, 'x-2'))).toMatchObject({
        kind: 'unprocessable',
        code: 'redec_superseding_obligation_does_not_inherit_consent',
      });
    });

    it('registers the obligation again once its extension, or that end, was annulled', () => {
      const annulled = apply(decideAnnulExtension(ended, 'x-1', annulment, grantedAt + 5 * DAY), ended);
      expect(types(register(annulled, credit(), grantedAt + 5 * DAY, 'x-2'))).toEqual(['CreditExtensionRegistered']);
      const endAnnulled = apply(decideAnnulExtensionEnd(superseded, 'x-1', annulment, grantedAt + 5 * DAY), superseded);
      expect(types(register(endAnnulled, credit({ creditOperationReference: 'op-2' }), grantedAt + 5 * DAY, 'x-2'))).toEqual(['CreditExtensionRegistered']);
    });
  });

  describe('end', () => {
    const extended = apply(register(state, credit(), grantedAt + 3 * DAY));

    it('is reported once, ending when the request says the obligation ended, the receipt by default', () => {
      const events = end(extended, { endReason: 'obligation_extinguished' }, grantedAt + 9 * DAY);
      expect(events).toEqual([
        {
          type: 'CreditExtensionEnded',
          data: {
            redecConsentId: 'con-1',
            creditExtensionId: 'x-1',
            obligationSourceSystem: 'core-loans',
            creditOperationReference: 'op-1',
            endReason: 'obligation_extinguished',
            supersededByObligationReference: null,
            endedAt: grantedAt + 9 * DAY,
          },
        },
      ]);
      expect(end(extended, { endReason: 'obligation_extinguished', occurredAt: grantedAt + 8 * DAY }, grantedAt + 9 * DAY)[0]).toMatchObject({ data: { endedAt: grantedAt + 8 * DAY } });
      expect(refusalOf(() => end(apply(events, extended), { endReason: 'obligation_extinguished' }, grantedAt + 10 * DAY)).code).toBe('redec_credit_extension_already_ended');
    });

    it('bounds occurredAt: not after the receipt, not before the credit, not further back than the profile allows', () => {
      const now = grantedAt + 20 * DAY;
      const at = (occurredAt: number) => () => end(extended, { endReason: 'obligation_extinguished', occurredAt }, now);
      expect(refusalOf(at(now + 1)).reason).toBe('occurred_at_after_receipt');
      expect(refusalOf(at(now - BASELINE_PROFILE.maxOccurredAtSkewMs - 1)).reason).toBe('occurred_at_beyond_profile_skew');
      const early = grantedAt + 3 * DAY;
      expect(refusalOf(() => end(extended, { endReason: 'obligation_extinguished', occurredAt: credit().creditGrantedAt - 1 }, early)).reason).toBe('occurred_at_before_credit_granted');
      expect(end(extended, { endReason: 'obligation_extinguished', occurredAt: credit().creditGrantedAt }, early)).toHaveLength(1);
    });

    it('takes supersededByObligationReference only, and always, with superseded_by_new_obligation, and never the ended obligation itself', () => {
      const now = grantedAt + 9 * DAY;
      expect(end(extended, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-2' }, now)[0]).toMatchObject({ data: { supersededByObligationReference: 'op-2' } });
      expect(refusalOf(() => end(extended, { endReason: 'superseded_by_new_obligation' }, now)).errors).toEqual([{ field: 'supersededByObligationReference', reason: 'required' }]);
      expect(refusalOf(() => end(extended, { endReason: 'acceleration_executed', supersededByObligationReference: 'op-2' }, now)).errors).toEqual([
        { field: 'supersededByObligationReference', reason: 'only_with_superseded_by_new_obligation' },
      ]);
      expect(refusalOf(() => end(extended, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-1' }, now)).errors).toEqual([
        { field: 'supersededByObligationReference', reason: 'superseding_obligation_is_the_ended_one' },
      ]);
      expect(refusalOf(() => end(extended, { endReason: 'obligation_extinguished' }, now, 'x-9')).code).toBe('NOT_FOUND');
    });

    it('makes a kept revocation take effect when it is the last active extension, and records so', () => {
      const kept = apply(revokeUnderBaseline(extended, revoke, grantedAt + 6 * DAY), extended);
      const events = end(kept, { endReason: 'acceleration_executed', occurredAt: grantedAt + 8 * DAY }, grantedAt + 9 * DAY);
      expect(types(events)).toEqual(['CreditExtensionEnded', 'RevocationTookEffect']);
      expect(events[1]).toEqual({ type: 'RevocationTookEffect', data: { redecConsentId: 'con-1', consentActionId: 'rev-1', effectiveAt: grantedAt + 8 * DAY } });
      expect(revocationView(apply(events, kept))).toMatchObject({ effective: true, effectiveAt: grantedAt + 8 * DAY });
    });

    it('leaves a kept revocation kept while another extension is active', () => {
      const twice = apply(register(extended, credit({ creditOperationReference: 'op-2' }), grantedAt + 3 * DAY, 'x-2'), extended);
      const kept = apply(revokeUnderBaseline(twice, revoke, grantedAt + 6 * DAY), twice);
      expect(types(end(kept, { endReason: 'obligation_extinguished' }, grantedAt + 9 * DAY))).toEqual(['CreditExtensionEnded']);
    });
  });
});

describe('annulments', () => {
  const extended = apply(register(state, credit(), grantedAt + 3 * DAY));
  const kept = apply(revokeUnderBaseline(extended, revoke, grantedAt + 6 * DAY), extended);

  it('of an extension leave it out of the consent, as if it had never been registered', () => {
    const events = decideAnnulExtension(extended, 'x-1', annulment, grantedAt + 4 * DAY);
    expect(events).toEqual([
      {
        type: 'CreditExtensionAnnulled',
        data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', obligationSourceSystem: 'core-loans', creditOperationReference: 'op-1', supersededByObligationReference: null, ...annulment, annulledAt: grantedAt + 4 * DAY },
      },
    ]);
    expect(apply(events, extended).creditExtensions).toEqual([]);
  });

  it('of the last active extension over a kept revocation make it take effect from revokedAt', () => {
    const events = decideAnnulExtension(kept, 'x-1', annulment, grantedAt + 7 * DAY);
    expect(types(events)).toEqual(['CreditExtensionAnnulled', 'RevocationTookEffect']);
    expect(revocationView(apply(events, kept))).toMatchObject({ effective: true, effectiveAt: revoke.occurredAt });
  });

  it('of the correcting extension withdraw its correction', () => {
    const revoked = apply(revokeUnderBaseline(state, revoke, grantedAt + 6 * DAY));
    const corrected = apply(register(revoked, credit(), grantedAt + 7 * DAY), revoked);
    const after = apply(decideAnnulExtension(corrected, 'x-1', annulment, grantedAt + 8 * DAY), corrected);
    expect(revocationView(after)).toEqual({ revokedAt: revoke.occurredAt, channel: 'digital', effective: true, effectiveAt: revoke.occurredAt, correctedAt: null });
  });

  it('of an end make the extension active again, and keep again the revocation that end made effective', () => {
    const ended = apply(end(kept, { endReason: 'obligation_extinguished' }, grantedAt + 8 * DAY), kept);
    const events = decideAnnulExtensionEnd(ended, 'x-1', annulment, grantedAt + 9 * DAY);
    expect(types(events)).toEqual(['CreditExtensionEndAnnulled', 'RevocationCorrected']);
    const after = apply(events, ended);
    expect(after.creditExtensions[0]).toMatchObject({ status: 'active', endReason: null, endedAt: null });
    expect(revocationView(after)).toMatchObject({ effective: false, effectiveAt: null, correctedAt: grantedAt + 9 * DAY });
    expect(types(end(after, { endReason: 'obligation_extinguished' }, grantedAt + 10 * DAY))).toEqual(['CreditExtensionEnded', 'RevocationTookEffect']);
  });

  it('are refused a second time, on an end not in force, and on what was annulled', () => {
    const annulled = apply(decideAnnulExtension(extended, 'x-1', annulment, grantedAt + 4 * DAY), extended);
    expect(refusalOf(() => decideAnnulExtension(annulled, 'x-1', annulment, grantedAt + 5 * DAY)).code).toBe('redec_credit_extension_annulled');
    expect(refusalOf(() => decideAnnulExtensionEnd(annulled, 'x-1', annulment, grantedAt + 5 * DAY)).code).toBe('redec_credit_extension_annulled');
    expect(refusalOf(() => end(annulled, { endReason: 'obligation_extinguished' }, grantedAt + 5 * DAY)).code).toBe('redec_credit_extension_annulled');
    expect(refusalOf(() => decideAnnulExtensionEnd(extended, 'x-1', annulment, grantedAt + 5 * DAY)).code).toBe('redec_credit_extension_not_ended');
    expect(refusalOf(() => decideAnnulExtension(extended, 'x-9', annulment, grantedAt + 5 * DAY)).code).toBe('NOT_FOUND');
    expect(refusalOf(() => decideAnnulExtension(null, 'x-1', annulment, grantedAt + 5 * DAY)).code).toBe('NOT_FOUND');
  });
});
