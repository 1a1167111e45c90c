import { BindingKind, ObligationBinding } from './obligation.events';

export type ConsentCodeResult = 'consent_code' | 'legacy_pre_redec' | 'no_applicable_consent' | 'unresolved' | 'ambiguous';

export const CONSENT_CODE_RESULTS: readonly ConsentCodeResult[] = ['consent_code', 'legacy_pre_redec', 'no_applicable_consent', 'unresolved', 'ambiguous'];

export interface ConsentCode {
  result: ConsentCodeResult;
  /** The 20-character field the bank reports; null when it must stop and reconcile. */
  consentCode: string | null;
}

/** Fixed-width fields that exist only in this answer, never as stored codes (docs/reference/obligations.md, "The consent-code lookup"). */
const LEGACY_PRE_REDEC = '9'.repeat(20);
const NO_APPLICABLE_CONSENT = '0'.repeat(20);

/**
 * docs/reference/obligations.md, "The consent-code lookup": the code to report
 * for one obligation, from its bindings and nothing else (never a search by
 * customer or a latest consent). Bindings that say the same thing (same kind,
 * same code: a binding and the credit extension of the same consent, say) count
 * once; two that disagree leave the bank nothing safe to report.
 */
export function consentCodeFor(bindings: readonly ObligationBinding[]): ConsentCode {
  const distinct = new Map(bindings.map((b) => [`${b.kind}\u0000${b.internalConsentCode ?? ''}`, b]));
  if (distinct.size === 0) return { result: 'unresolved', consentCode: null };
  if (distinct.size > 1) return { result: 'ambiguous', consentCode: null };
  const [only] = distinct.values();
  return answerFor(only.kind, only.internalConsentCode);
}

function answerFor(kind: BindingKind, internalConsentCode: string | null): ConsentCode {
  switch (kind) {
    case 'consent':
      return { result: 'consent_code', consentCode: internalConsentCode };
    case 'legacy_pre_redec':
      return { result: 'legacy_pre_redec', consentCode: LEGACY_PRE_REDEC };
    case 'no_applicable_consent':
      return { result: 'no_applicable_consent', consentCode: NO_APPLICABLE_CONSENT };
    default: {
      const unexpected: never = kind;
      return unexpected;
    }
  }
}
