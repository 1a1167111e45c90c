import { ConsentEvent } from '../consent/consent.events';
import { AccessRequest, DENY_REASON_CODES, checkAccessRequest, decideAccess } from './access.decider';
import { facts, given, grantedAt, state, validUntil } from '../consent/testing/consent-fixtures';
import { accessRequest } from './testing/access-fixtures';

const DAY = 86_400_000;
const request = accessRequest;
const extension = (reference: string, objectiveCode = '02') => facts.extension(`x-${reference}`, reference, grantedAt + DAY, objectiveCode);
const revocation = (effective: boolean) => facts.revocation(grantedAt + 2 * DAY, effective);
const ended = (reference: string) => facts.extensionEnded(`x-${reference}`, grantedAt + 3 * DAY);
const manage = (sourceReference: string, overrides: Partial<AccessRequest> = {}) =>
  request({
    consentAuthorizationMode: 'credit_lifecycle_extension',
    accessPurpose: 'manage_existing_obligation',
    reportingObligation: { status: 'granted', sourceSystem: 'core-loans', sourceReference, assertedAt: grantedAt },
    ...overrides,
  });

describe('access authorization', () => {
  describe('initial_window', () => {
    it('authorizes a granted scope, data category and objective while the consent is valid', () => {
      expect(decideAccess(state, request(), grantedAt + DAY)).toEqual({ status: 'authorized' });
      expect(decideAccess(state, request(), validUntil)).toEqual({ status: 'authorized' });
    });

    it.each<[string, Partial<AccessRequest>, number, string]>([
      ['after the window', {}, validUntil + 1, 'redec_initial_window_expired'],
      ['a scope not granted', { scopeId: 'redec-other' }, grantedAt + DAY, 'redec_scope_not_granted'],
      ['another data category', { dataCategoryCode: 'redec.other' }, grantedAt + DAY, 'redec_data_category_not_granted'],
      ['an objective not granted', { objectiveCode: '09' }, grantedAt + DAY, 'redec_objective_not_granted'],
    ])('denies %s', (_case, overrides, now, denyReasonCode) => {
      expect(decideAccess(state, request(overrides), now)).toEqual({ status: 'denied', denyReasonCode });
    });

    it('denies from revokedAt on, after an effective revocation and after one kept without effect alike', () => {
      const revokedAt = grantedAt + 2 * DAY;
      for (const consent of [given(revocation(true)), given(extension('op-1'), revocation(false))]) {
        expect(decideAccess(consent, request(), revokedAt - 1)).toEqual({ status: 'authorized' });
        expect(decideAccess(consent, request(), revokedAt)).toEqual({ status: 'denied', denyReasonCode: 'redec_consent_revoked' });
      }
    });

    it('denies an unknown consent rather than failing', () => {
      expect(decideAccess(null, request(), grantedAt)).toEqual({ status: 'denied', denyReasonCode: 'redec_consent_not_found' });
    });
  });

  describe('credit_lifecycle_extension', () => {
    it('authorizes managing the exact obligation of an active extension, even after the window', () => {
      expect(decideAccess(given(extension('op-1')), manage('op-1'), validUntil + 100 * DAY)).toEqual({ status: 'authorized' });
    });

    it('denies evaluating new credit, auditably, whatever the consent', () => {
      const evaluate = manage('op-1', { accessPurpose: 'evaluate_new_credit' });
      for (const consent of [state, given(extension('op-1'))]) {
        expect(decideAccess(consent, evaluate, grantedAt + DAY)).toEqual({ status: 'denied', denyReasonCode: 'redec_credit_extension_purpose_not_obligation_management' });
      }
    });

    it.each<[string, ConsentEvent[], AccessRequest]>([
      ['another obligation', [extension('op-1')], manage('op-2')],
      ['the same reference in another source system', [extension('op-1')], manage('op-1', { reportingObligation: { status: 'granted', sourceSystem: 'cards', sourceReference: 'op-1', assertedAt: grantedAt } })],
      ['an extension that has ended', [extension('op-1'), ended('op-1')], manage('op-1')],
      ['no extension at all', [], manage('op-1')],
    ])('denies %s', (_case, events, access) => {
      expect(decideAccess(given(...events), access, grantedAt + 4 * DAY)).toEqual({ status: 'denied', denyReasonCode: 'redec_no_active_extension_for_obligation' });
    });

    it('authorizes the exact obligation while a revocation is kept without effect, and denies it revoked once it took effect', () => {
      const kept = given(extension('op-1'), revocation(false));
      expect(decideAccess(kept, manage('op-1'), grantedAt + 4 * DAY)).toEqual({ status: 'authorized' });
      expect(decideAccess(kept, manage('op-2'), grantedAt + 4 * DAY)).toEqual({ status: 'denied', denyReasonCode: 'redec_no_active_extension_for_obligation' });
      const tookEffect = given(extension('op-1'), revocation(false), ended('op-1'));
      expect(decideAccess(tookEffect, manage('op-1'), grantedAt + 4 * DAY)).toEqual({ status: 'denied', denyReasonCode: 'redec_consent_revoked' });
    });

    it("denies an objective other than the extension's", () => {
      expect(decideAccess(given(extension('op-1', '03')), manage('op-1'), grantedAt + 4 * DAY)).toEqual({ status: 'denied', denyReasonCode: 'redec_objective_not_granted' });
    });
  });

  it('refuses accessPurpose with initial_window and requires it with credit_lifecycle_extension', () => {
    expect(() => checkAccessRequest({ consentAuthorizationMode: 'initial_window', accessPurpose: 'manage_existing_obligation' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [{ field: 'accessPurpose', reason: 'not_with_initial_window' }] }),
    );
    expect(() => checkAccessRequest({ consentAuthorizationMode: 'credit_lifecycle_extension' })).toThrow(
      expect.objectContaining({ errors: [{ field: 'accessPurpose', reason: 'required' }] }),
    );
    expect(() => checkAccessRequest({ consentAuthorizationMode: 'initial_window' })).not.toThrow();
  });

  it('has a distinct code for every denial', () => {
    expect(new Set(DENY_REASON_CODES).size).toBe(DENY_REASON_CODES.length);
  });
});
