import { ConsentState, CreditExtension } from './consent.state';

/**
 * What a consent enables, and from when to when, as its facts stand now
 * (docs/decisions/0023-regulatory-invariants.md). The access decision, the
 * confirmation of an access, the binding of an obligation, the status and
 * the retention floor all read these functions, so they cannot disagree.
 */

/** An obligation as an access request or a binding names it. */
export interface ObligationRef {
  sourceSystem: string;
  obligationReference: string;
}

export interface RevocationEffect {
  /** The revocation stops the consent: no credit extension is active. */
  effective: boolean;
  /** When it took effect: the later of revokedAt and the end of the last extension; null while kept without effect. */
  effectiveAt: number | null;
}

/**
 * Spec 3: a revocation is kept without effect while a credit extension is
 * active (an `extended` consent is not revocable), and takes effect when the
 * last one ends. Derived from the extensions in force, so annulling an
 * extension or its end moves the effect with it. Null without a revocation.
 */
export function revocationEffect({ revocation, creditExtensions }: ConsentState): RevocationEffect | null {
  if (!revocation) return null;
  if (creditExtensions.some((e) => e.status === 'active')) return { effective: false, effectiveAt: null };
  return { effective: true, effectiveAt: Math.max(revocation.revokedAt, ...creditExtensions.map((e) => e.endedAt ?? -Infinity)) };
}

/**
 * Why the initial window did not enable access at `at`, or null when it did.
 * Any revocation, effective or kept, ends it at revokedAt: an extension keeps
 * the consent alive only for its own obligation (spec 3 and rule 7).
 */
export function initialWindowClosedAt(consent: ConsentState, at: number): 'redec_consent_revoked' | 'redec_initial_window_expired' | null {
  if (consent.revocation && at >= consent.revocation.revokedAt) return 'redec_consent_revoked';
  if (at > consent.grant.initialAccessValidUntil) return 'redec_initial_window_expired';
  return null;
}

/**
 * The extension covering exactly this obligation at `at`: the consent's
 * obligation source system and the extension's creditOperationReference,
 * from the credit's grant until the obligation ended.
 */
export function extensionCovering(consent: ConsentState, obligation: ObligationRef, at: number): CreditExtension | undefined {
  if (obligation.sourceSystem !== consent.grant.obligationSourceSystem) return undefined;
  return consent.creditExtensions.find(
    (e) => e.creditOperationReference === obligation.obligationReference && e.creditGrantedAt <= at && (e.endedAt === null || at < e.endedAt),
  );
}

/**
 * Spec 2.10: the obligations that superseded one of this consent's and so do
 * not inherit it (named by an extension end in force).
 */
export function isSupersedingObligation(consent: ConsentState, obligation: ObligationRef): boolean {
  return (
    obligation.sourceSystem === consent.grant.obligationSourceSystem &&
    consent.creditExtensions.some((e) => e.supersededByObligationReference === obligation.obligationReference)
  );
}

/** Whether the consent enabled access for this obligation at `at`: in its initial window, or extended for exactly that obligation. */
export function enabledForObligationAt(consent: ConsentState, obligation: ObligationRef, at: number): boolean {
  if (at < consent.grant.grantedAt) return false;
  return initialWindowClosedAt(consent, at) === null || extensionCovering(consent, obligation, at) !== undefined;
}
