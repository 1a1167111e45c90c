import { refusalOf } from '@ledger/platform/testing';
import { ConsentState } from '../consent/consent.state';
import { facts, given, grant, grantedAt, state as consent, validUntil } from '../consent/testing/consent-fixtures';
import { BindDecision, BindObligationRequest, decideAnnulBinding, decideBind } from './bind.decider';
import { BindingKind, ObligationBinding, ObligationBindings, evolveObligationBindings } from './obligation.events';

const DAY = 86_400_000;
const MINUTE = 60_000;
const NOW = grantedAt + 2 * DAY;
const policy = { callerClockSkewMs: 5 * MINUTE };
const CODE = grant.data.internalConsentCode;
const otherConsent: ConsentState = { ...consent, grant: { ...consent.grant, redecConsentId: 'con-2', internalConsentCode: 'ZZZZZZZZZZZZZZZZZZZ1' } };

const obligation = { sourceSystem: 'core-loans', obligationReference: 'op-1', obligationGrantedAt: grantedAt + DAY };
const toConsent = (redecConsentId = 'con-1'): BindObligationRequest => ({ ...obligation, kind: 'consent', redecConsentId });
const asKind = (kind: Exclude<BindingKind, 'consent'>): BindObligationRequest => ({ ...obligation, kind });

/** What a decision recorded, as the binding it is. */
const bound = (decision: BindDecision): ObligationBinding => {
  if (decision.kind !== 'bound') throw new Error(`expected a new binding, got ${decision.kind}`);
  return decision.event.data;
};
/** The obligation's stream folded from these bindings, in force. */
const inForce = (bindings: ObligationBinding[]): ObligationBindings => ({ bindings, annulled: [] });
const decide = (existing: ObligationBinding[], request: BindObligationRequest, of: ConsentState | null = null, bindingId = 'b-new', now = NOW) =>
  decideBind(inForce(existing), request, of, policy, { bindingId }, now);
describe('binding an obligation', () => {
  it('to a consent records the ObligationBound fact with the consent and its frozen internal code', () => {
    expect(decide([], toConsent(), consent)).toEqual({
      kind: 'bound',
      event: {
        type: 'ObligationBound',
        data: { bindingId: 'b-new', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE, obligationGrantedAt: grantedAt + DAY, boundAt: NOW },
      },
    });
  });

  it.each(['legacy_pre_redec', 'no_applicable_consent'] as const)('as %s records the kind alone: no consent, and no 9s or 0s stored as a code', (kind) => {
    expect(bound(decide([], asKind(kind)))).toEqual({
      bindingId: 'b-new',
      sourceSystem: 'core-loans',
      obligationReference: 'op-1',
      kind,
      redecConsentId: null,
      internalConsentCode: null,
      obligationGrantedAt: grantedAt + DAY,
      boundAt: NOW,
    });
  });

  it('takes redecConsentId null as not sent for the kinds without a consent', () => {
    expect(bound(decide([], { ...asKind('legacy_pre_redec'), redecConsentId: null })).redecConsentId).toBeNull();
  });
});

describe('a binding already recorded for the obligation', () => {
  const first = (request: BindObligationRequest, of: ConsentState | null = null) => bound(decide([], request, of, 'b-first'));

  it.each([
    ['the same consent', toConsent(), consent],
    ['legacy_pre_redec again', asKind('legacy_pre_redec'), null],
    ['no_applicable_consent again', asKind('no_applicable_consent'), null],
  ] as const)('answers %s with the first binding and records nothing', (_, request, of) => {
    const earlier = first(request, of);
    expect(decide([earlier], request, of)).toEqual({ kind: 'already_bound', binding: earlier });
  });

  it('finds the identical one among several', () => {
    const legacy = first(asKind('legacy_pre_redec'));
    const toA = first(toConsent(), consent);
    expect(decide([legacy, toA], toConsent(), consent)).toEqual({ kind: 'already_bound', binding: toA });
  });

  it.each([
    ['another consent', toConsent(), consent, toConsent('con-2'), otherConsent],
    ['a consent after legacy_pre_redec', asKind('legacy_pre_redec'), null, toConsent(), consent],
    ['legacy_pre_redec after a consent', toConsent(), consent, asKind('legacy_pre_redec'), null],
    ['no_applicable_consent after legacy_pre_redec', asKind('legacy_pre_redec'), null, asKind('no_applicable_consent'), null],
  ] as const)('keeps a different second binding (%s) beside the first', (_, firstRequest, firstConsent, secondRequest, secondConsent) => {
    const second = bound(decide([first(firstRequest, firstConsent)], secondRequest, secondConsent));
    expect(second).toMatchObject({ bindingId: 'b-new', kind: secondRequest.kind, redecConsentId: secondRequest.redecConsentId ?? null });
  });
});

describe('refusals', () => {
  it.each([undefined, null])('kind consent without redecConsentId (%p) is a VALIDATION_ERROR on that field', (redecConsentId) => {
    const error = refusalOf(() => decide([], { ...obligation, kind: 'consent', redecConsentId }, consent));
    expect(error).toMatchObject({ kind: 'validation', code: 'VALIDATION_ERROR', errors: [{ field: 'redecConsentId', reason: 'required' }] });
  });

  it.each(['legacy_pre_redec', 'no_applicable_consent'] as const)('kind %s with a redecConsentId is a VALIDATION_ERROR on that field', (kind) => {
    const error = refusalOf(() => decide([], { ...asKind(kind), redecConsentId: 'con-1' }, consent));
    expect(error).toMatchObject({ kind: 'validation', code: 'VALIDATION_ERROR', errors: [{ field: 'redecConsentId', reason: 'not_for_binding_kind' }] });
  });

  it('checks the request before answering an identical binding', () => {
    const legacy = bound(decide([], asKind('legacy_pre_redec')));
    expect(refusalOf(() => decide([legacy], { ...asKind('legacy_pre_redec'), redecConsentId: 'con-1' })).code).toBe('VALIDATION_ERROR');
  });

  it('a consent the tenant does not have is NOT_FOUND', () => {
    expect(refusalOf(() => decide([], toConsent('con-unknown'), null))).toMatchObject({ kind: 'not_found', code: 'NOT_FOUND' });
  });

  it("an obligation of a source system other than the consent's is redec_obligation_source_system_mismatch", () => {
    const error = refusalOf(() => decide([], { ...toConsent(), sourceSystem: 'cards' }, consent));
    expect(error).toMatchObject({ kind: 'unprocessable', code: 'redec_obligation_source_system_mismatch' });
  });
});

describe('when the obligation was granted', () => {
  const at = (obligationGrantedAt: number, of: ConsentState = consent, now = NOW) => () => decide([], { ...toConsent(), obligationGrantedAt }, of, 'b-new', now);
  const notValid = { kind: 'unprocessable', code: 'redec_consent_not_valid_at_obligation_grant' };

  it("is not later than the receipt beyond the profile's caller clock skew, whatever the kind", () => {
    expect(at(NOW + policy.callerClockSkewMs, consent, NOW)()).toMatchObject({ kind: 'bound' });
    expect(refusalOf(at(NOW + policy.callerClockSkewMs + 1))).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'obligationGrantedAt', reason: 'obligation_granted_after_receipt' }] });
    expect(refusalOf(() => decide([], { ...asKind('legacy_pre_redec'), obligationGrantedAt: NOW + DAY }))).toMatchObject({ reason: 'obligation_granted_after_receipt' });
  });

  it('must be an instant the consent enabled access: inside its initial window', () => {
    expect(at(grantedAt)()).toMatchObject({ kind: 'bound' });
    expect(at(validUntil, consent, validUntil + DAY)()).toMatchObject({ kind: 'bound' });
    expect(refusalOf(at(grantedAt - 1))).toMatchObject(notValid);
    expect(refusalOf(at(validUntil + 1, consent, validUntil + DAY))).toMatchObject(notValid);
  });

  it('and before any revocation, effective or kept without effect', () => {
    const revokedAt = grantedAt + DAY;
    for (const revoked of [given(facts.revocation(revokedAt, true)), given(facts.extension('x-9', 'op-9', grantedAt + 1000), facts.revocation(revokedAt, false))]) {
      expect(at(revokedAt - 1, revoked)()).toMatchObject({ kind: 'bound' });
      expect(refusalOf(at(revokedAt, revoked))).toMatchObject(notValid);
    }
  });

  it('or while an extension covered exactly that obligation', () => {
    const extended = given(facts.extension('x-1', 'op-1', grantedAt + DAY), facts.revocation(grantedAt + 2 * DAY, false));
    expect(at(validUntil + DAY, extended, validUntil + 2 * DAY)()).toMatchObject({ kind: 'bound' });
    expect(refusalOf(() => decide([], { ...toConsent(), obligationReference: 'op-2', obligationGrantedAt: validUntil + DAY }, extended, 'b-new', validUntil + 2 * DAY))).toMatchObject(notValid);
    const ended = given(facts.extension('x-1', 'op-1', grantedAt + DAY), facts.extensionEnded('x-1', validUntil + DAY, { creditOperationReference: 'op-1' }));
    expect(refusalOf(at(validUntil + DAY, ended, validUntil + 2 * DAY))).toMatchObject(notValid);
  });
});

describe('a superseding obligation', () => {
  it("is never bound to the consent of the obligation it superseded", () => {
    const superseded = given(
      facts.extension('x-1', 'op-0', grantedAt + 1000),
      facts.extensionEnded('x-1', grantedAt + DAY, { creditOperationReference: 'op-0', endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-1' }),
    );
    expect(refusalOf(() => decide([], toConsent(), superseded))).toMatchObject({ kind: 'unprocessable', code: 'redec_superseding_obligation_does_not_inherit_consent' });
    // Of another source system, it is another obligation: the source system mismatch says so.
    expect(refusalOf(() => decide([], { ...toConsent(), sourceSystem: 'cards' }, superseded)).code).toBe('redec_obligation_source_system_mismatch');
  });
});

describe('annulling a binding', () => {
  const annulment = { reason: 'bound to the wrong consent', sourceReference: 'ticket-4' };
  const first = bound(decide([], toConsent(), consent, 'b-first'));

  it('records the annulment of a binding in force, with the consent it named', () => {
    expect(decideAnnulBinding(inForce([first]), 'b-first', annulment, NOW + 1)).toEqual({
      type: 'ObligationBindingAnnulled',
      data: { bindingId: 'b-first', sourceSystem: 'core-loans', obligationReference: 'op-1', redecConsentId: 'con-1', ...annulment, annulledAt: NOW + 1 },
    });
  });

  it('leaves it out of the bindings in force, so the same binding is recorded anew', () => {
    const after = evolveObligationBindings(inForce([first]), decideAnnulBinding(inForce([first]), 'b-first', annulment, NOW + 1));
    expect(after).toEqual({ bindings: [], annulled: [first] });
    expect(decideBind(after, toConsent(), consent, policy, { bindingId: 'b-again' }, NOW + 2)).toMatchObject({ kind: 'bound', event: { data: { bindingId: 'b-again' } } });
  });

  it('is refused a second time, and for a binding the obligation never had', () => {
    const after = evolveObligationBindings(inForce([first]), decideAnnulBinding(inForce([first]), 'b-first', annulment, NOW + 1));
    expect(refusalOf(() => decideAnnulBinding(after, 'b-first', annulment, NOW + 2))).toMatchObject({ kind: 'conflict', code: 'redec_binding_already_annulled' });
    expect(refusalOf(() => decideAnnulBinding(after, 'b-other', annulment, NOW + 2)).code).toBe('NOT_FOUND');
  });
});
