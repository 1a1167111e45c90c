import { consentCodeFor } from './consent-code';
import { BindingKind, ObligationBinding } from './obligation.events';

const CODE_A = 'A1B2C3D4E5F6G7H8I9J0';
const CODE_B = 'B1B2C3D4E5F6G7H8I9J0';
let next = 0;
const binding = (kind: BindingKind, internalConsentCode: string | null = null): ObligationBinding => ({
  bindingId: `b-${(next += 1)}`,
  sourceSystem: 'core-loans',
  obligationReference: 'op-1',
  kind,
  redecConsentId: internalConsentCode && `con-${internalConsentCode}`,
  internalConsentCode,
  obligationGrantedAt: 1_764_000_000_000,
  boundAt: 1_764_000_000_000 + next,
});

describe('the consent code of an obligation', () => {
  it('is unresolved, with no code, when the obligation has no binding', () => {
    expect(consentCodeFor([])).toEqual({ result: 'unresolved', consentCode: null });
  });

  it("is the consent's frozen internal code for one consent binding", () => {
    expect(consentCodeFor([binding('consent', CODE_A)])).toEqual({ result: 'consent_code', consentCode: CODE_A });
  });

  it('is twenty 9s for legacy_pre_redec', () => {
    expect(consentCodeFor([binding('legacy_pre_redec')])).toEqual({ result: 'legacy_pre_redec', consentCode: '99999999999999999999' });
  });

  it('is twenty 0s for no_applicable_consent', () => {
    expect(consentCodeFor([binding('no_applicable_consent')])).toEqual({ result: 'no_applicable_consent', consentCode: '00000000000000000000' });
  });

  it.each([
    ['two bindings to the same consent (a binding and its credit extension)', [binding('consent', CODE_A), binding('consent', CODE_A)], { result: 'consent_code', consentCode: CODE_A }],
    ['legacy_pre_redec twice', [binding('legacy_pre_redec'), binding('legacy_pre_redec')], { result: 'legacy_pre_redec', consentCode: '9'.repeat(20) }],
    ['no_applicable_consent twice', [binding('no_applicable_consent'), binding('no_applicable_consent')], { result: 'no_applicable_consent', consentCode: '0'.repeat(20) }],
  ])('counts bindings that agree once: %s', (_, bindings, expected) => {
    expect(consentCodeFor(bindings)).toEqual(expected);
  });

  it.each([
    ['two consents', [binding('consent', CODE_A), binding('consent', CODE_B)]],
    ['a consent and legacy_pre_redec', [binding('consent', CODE_A), binding('legacy_pre_redec')]],
    ['a consent and no_applicable_consent', [binding('no_applicable_consent'), binding('consent', CODE_A)]],
    ['legacy_pre_redec and no_applicable_consent', [binding('legacy_pre_redec'), binding('no_applicable_consent')]],
    ['agreeing bindings and one that disagrees', [binding('consent', CODE_A), binding('consent', CODE_A), binding('consent', CODE_B)]],
  ])('is ambiguous, with no code, for bindings that disagree: %s', (_, bindings) => {
    expect(consentCodeFor(bindings)).toEqual({ result: 'ambiguous', consentCode: null });
  });
});
