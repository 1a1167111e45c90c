import { ConsentState, CreditExtension } from './consent.state';

/**
 * What a consent enables, and from when to when, as its facts stand now
 * (docs/decisions/0023-regulatory-invariants.md and
 * 0054-facts-in-the-order-they-happened.md). The access decision, the
 * confirmation of an access, the binding of an obligation, the consent-code
 * lookup, the status and the retention floor all read these functions, so
 * they cannot disagree.
 *
 * Every rule here compares the instants the facts happened at (`grantedAt`,
 * `revokedAt`, `creditGrantedAt`, `endedAt`), never the order in which the
 * bank reported them: the same facts give the same answers whatever order
 * they arrived in. Intervals are half-open: what stops access (a revocation,
 * the end of an obligation) takes effect at its own instant, so of two facts
 * at the same millisecond, the one that stops access wins.
 */

/** An obligation as an access request or a binding names it. */
export interface ObligationRef {
  sourceSystem: string;
  obligationReference: string;
}

/** Why a credit extension in force keeps nothing alive: it stays a fact, and the read says why. */
export type ExtensionIneffectiveReason =
  /** The credit was granted at or after the data subject revoked: a revocation is kept without effect only for a credit granted before it (docs/reference/states.md, "Consent status"). */
  | 'credit_granted_after_revocation'
  /** An end in force of another extension named this obligation as superseding it: the new obligation does not inherit the consent (docs/reference/credit-extensions.md, "Superseding obligations"). */
  | 'superseding_obligation';

/**
 * Why this extension enables nothing, or null when it keeps the consent for
 * its obligation. Both reasons hold whichever fact was reported first.
 */
export function extensionIneffectiveReason(consent: ConsentState, extension: CreditExtension): ExtensionIneffectiveReason | null {
  return effectsOf(consent).reasons.get(extension.creditExtensionId) ?? null;
}

/** The extensions in force that keep the consent for their obligation, in the order their credits were granted. */
export function effectiveExtensions(consent: ConsentState): CreditExtension[] {
  return inCreditOrder(consent.creditExtensions.filter((e) => extensionIneffectiveReason(consent, e) === null));
}

/**
 * Extensions in the order their credits were granted, then by reference and
 * id: an order of the facts themselves, the same whatever order they were
 * reported in (the tie rule wherever one extension has to come first).
 */
export function inCreditOrder<E extends Pick<CreditExtension, 'creditGrantedAt' | 'creditOperationReference' | 'creditExtensionId'>>(extensions: readonly E[]): E[] {
  return [...extensions].sort(
    (a, b) => a.creditGrantedAt - b.creditGrantedAt || compareText(a.creditOperationReference, b.creditOperationReference) || compareText(a.creditExtensionId, b.creditExtensionId),
  );
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface ExtensionEffects {
  reasons: Map<string, ExtensionIneffectiveReason | null>;
  /** The obligation references an end in force of an effective extension named as superseding it. */
  superseding: Set<string>;
}

/** States are never changed once folded (evolve makes new ones), so what they enable is worked out once per state. */
const effects = new WeakMap<ConsentState, ExtensionEffects>();

/**
 * Weighs the extensions in the order their credits were granted. One keeps
 * the consent unless its credit was granted at or after the revocation, or
 * an end in force of an extension weighed before it, and itself keeping the
 * consent, named its obligation as superseding: a new obligation comes after
 * the one it replaces, and an obligation that never had the consent hands
 * nothing on. Credits granted at the same instant are weighed together: one
 * keeps the consent once none of the others still in the running names it,
 * and where they name each other in a ring, the first in credit order does.
 * Weighed so, the ends give one answer however they name each other,
 * whatever order they were reported in.
 */
function effectsOf(consent: ConsentState): ExtensionEffects {
  let known = effects.get(consent);
  if (known) return known;
  const { reasons, superseding }: ExtensionEffects = (known = { reasons: new Map(), superseding: new Set() });
  const revokedAt = consent.revocation?.revokedAt ?? null;
  const ordered = inCreditOrder(consent.creditExtensions);
  for (let i = 0; i < ordered.length; ) {
    const instant = ordered[i].creditGrantedAt;
    const running: CreditExtension[] = [];
    for (; i < ordered.length && ordered[i].creditGrantedAt === instant; i += 1) {
      const extension = ordered[i];
      if (revokedAt !== null && instant >= revokedAt) reasons.set(extension.creditExtensionId, 'credit_granted_after_revocation');
      else if (superseding.has(extension.creditOperationReference)) reasons.set(extension.creditExtensionId, 'superseding_obligation');
      else running.push(extension);
    }
    while (running.length > 0) {
      const named = new Set(running.map((e) => e.supersededByObligationReference));
      const keeper = running.find((e) => !named.has(e.creditOperationReference)) ?? running[0];
      running.splice(running.indexOf(keeper), 1);
      reasons.set(keeper.creditExtensionId, null);
      const successor = keeper.supersededByObligationReference;
      if (successor === null) continue;
      superseding.add(successor);
      for (const superseded of running.filter((e) => e.creditOperationReference === successor)) {
        running.splice(running.indexOf(superseded), 1);
        reasons.set(superseded.creditExtensionId, 'superseding_obligation');
      }
    }
  }
  effects.set(consent, known);
  return known;
}

/** Whether an effective extension has no end: the consent is `extended`, not revocable (docs/reference/states.md, "Consent status"). */
export function isExtended(consent: ConsentState): boolean {
  return effectiveExtensions(consent).some((e) => e.status === 'active');
}

export interface RevocationEffect {
  /** The revocation stops the consent: no effective credit extension is active. */
  effective: boolean;
  /** When it took effect: the later of revokedAt and the end of the last effective extension; null while kept without effect. */
  effectiveAt: number | null;
}

/**
 * docs/reference/states.md, "Consent status": a revocation is kept without
 * effect while an extension of a credit granted before it is active (an
 * `extended` consent is not revocable), and takes effect when the last such one
 * ends. Derived from the extensions in force, so annulling an extension or its
 * end moves the effect with it, and a credit reported before a back-dated
 * revocation it postdates keeps nothing alive. Null without a revocation.
 */
export function revocationEffect(consent: ConsentState): RevocationEffect | null {
  const { revocation } = consent;
  if (!revocation) return null;
  const effective = effectiveExtensions(consent);
  if (effective.some((e) => e.status === 'active')) return { effective: false, effectiveAt: null };
  return { effective: true, effectiveAt: Math.max(revocation.revokedAt, ...effective.map((e) => e.endedAt ?? -Infinity)) };
}

/**
 * Why the initial window did not enable access at `at`, or null when it did.
 * Any revocation, effective or kept, ends it at revokedAt: an extension keeps
 * the consent alive only for its own obligation (docs/reference/accesses.md,
 * "What is weighed").
 */
export function initialWindowClosedAt(consent: ConsentState, at: number): 'redec_consent_revoked' | 'redec_initial_window_expired' | null {
  if (consent.revocation && at >= consent.revocation.revokedAt) return 'redec_consent_revoked';
  if (at > consent.grant.initialAccessValidUntil) return 'redec_initial_window_expired';
  return null;
}

/**
 * The effective extension covering exactly this obligation at `at`: the
 * consent's obligation source system and the extension's
 * creditOperationReference, from the credit's grant until the obligation
 * ended.
 */
export function extensionCovering(consent: ConsentState, obligation: ObligationRef, at: number): CreditExtension | undefined {
  if (obligation.sourceSystem !== consent.grant.obligationSourceSystem) return undefined;
  return effectiveExtensions(consent).find(
    (e) => e.creditOperationReference === obligation.obligationReference && e.creditGrantedAt <= at && (e.endedAt === null || at < e.endedAt),
  );
}

/**
 * docs/reference/credit-extensions.md, "Superseding obligations": the
 * obligations that superseded one of this consent's and so do
 * not inherit it: named by an end in force of an extension that keeps the
 * consent (effectsOf), and not kept by an extension of their own, of a
 * credit granted before that one's.
 */
export function isSupersedingObligation(consent: ConsentState, obligation: ObligationRef): boolean {
  const { obligationReference } = obligation;
  return (
    obligation.sourceSystem === consent.grant.obligationSourceSystem &&
    effectsOf(consent).superseding.has(obligationReference) &&
    !effectiveExtensions(consent).some((e) => e.creditOperationReference === obligationReference)
  );
}

/** Whether the consent enabled access for this obligation at `at`: in its initial window, or extended for exactly that obligation. */
export function enabledForObligationAt(consent: ConsentState, obligation: ObligationRef, at: number): boolean {
  if (at < consent.grant.grantedAt) return false;
  return initialWindowClosedAt(consent, at) === null || extensionCovering(consent, obligation, at) !== undefined;
}

/**
 * docs/reference/obligations.md, "The consent-code lookup": whether a binding
 * of this obligation to the consent, the obligation granted at
 * `obligationGrantedAt`, stands on the consent's facts as they stand now: the
 * consent enabled access for it then, and it is not an obligation that
 * superseded one of the consent's. A binding recorded before a back-dated
 * revocation was reported stops standing, exactly as the same binding reported
 * after it is refused.
 */
export function bindingStands(consent: ConsentState, obligation: ObligationRef, obligationGrantedAt: number): boolean {
  return !isSupersedingObligation(consent, obligation) && enabledForObligationAt(consent, obligation, obligationGrantedAt);
}
