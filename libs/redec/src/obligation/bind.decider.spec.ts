import { refusalOf } from '@ledger/platform/testing';
import { ConsentState } from '../consent/consent.state';
import { grant, state as consent } from '../consent/testing/consent-fixtures';
import { BindDecision, BindObligationRequest, decideBind } from './bind.decider';
import { BindingKind, ObligationBinding } from './obligation.events';

const NOW = 1_764_000_000_000;
const CODE = grant.data.internalConsentCode;
const otherConsent: ConsentState = { ...consent, grant: { ...consent.grant, redecConsentId: 'con-2', internalConsentCode: 'ZZZZZZZZZZZZZZZZZZZ1' } };

const obligation = { sourceSystem: 'core-loans', obligationReference: 'op-1' };
const toConsent = (redecConsentId = 'con-1'): BindObligationRequest => ({ ...obligation, kind: 'consent', redecConsentId });
const asKind = (kind: Exclude<BindingKind, 'consent'>): BindObligationRequest => ({ ...obligation, kind });

/** What a decision recorded, as the binding it is. */
const bound = (decision: BindDecision): ObligationBinding => {
  if (decision.kind !== 'bound') throw new Error(`expected a new binding, got ${decision.kind}`);
  return decision.event.data;
};
const decide = (existing: ObligationBinding[], request: BindObligationRequest, of: ConsentState | null = null, bindingId = 'b-new') =>
  decideBind(existing, request, of, { bindingId }, NOW);
describe('binding an obligation', () => {
  it('to a consent records the ObligationBound fact with the consent and its frozen internal code', () => {
    expect(decide([], toConsent(), consent)).toEqual({
      kind: 'bound',
      event: {
        type: 'ObligationBound',
        data: { bindingId: 'b-new', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE, boundAt: NOW },
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
