import {
  AccessDecision,
  AccessMode,
  Action,
  Answer,
  BindingKind,
  ConsentNo,
  ConsentRead,
  EndReason,
  GRANTED_OBJECTIVES,
  Ledger,
  Lookup,
  OBLIGATION_SOURCE_SYSTEM,
  Obligation,
  PROFILE,
  consentCodeOf,
} from './ledger';

/**
 * The REDEC lifecycle written from the words of the interface reference (docs/reference/: the regulatory
 * representation, accesses, credit extensions, obligations, revocations, states) and decision 0023 (rules cited as
 * "rule N"), without the implementation: plain records of what was said and when, and every answer computed from them
 * directly. No event is folded.
 */

interface Consent {
  customerId: string;
  grantedAt: number;
  validUntil: number;
  revokedAt: number | null;
  /** When a command turned the revocation from effective to kept again, and the extension that did it (rule 11). */
  corrections: Array<{ creditExtensionId: string; at: number }>;
}

interface End {
  endedAt: number;
  endReason: EndReason;
  supersededBy: string | null;
}

interface Extension {
  id: string;
  consent: ConsentNo;
  reference: string;
  objectiveCode: string;
  creditGrantedAt: number;
  extendedAt: number;
  /** Rule 13: as if never registered. */
  annulled: boolean;
  /** The end in force; an annulled end is simply gone (rule 13). */
  end: End | null;
}

interface Binding {
  id: string;
  obligation: Obligation;
  kind: BindingKind;
  consent: ConsentNo | null;
  obligationGrantedAt: number;
  annulled: boolean;
}

interface Access {
  consent: ConsentNo;
  mode: AccessMode;
  obligation: Obligation;
  objectiveCode: string;
  decidedAt: number;
  expiresAt: number | null;
  confirmed: boolean;
}

const ok: Answer = { accepted: true };
const refused = (code: string): Answer => ({ accepted: false, code });
/** A VALIDATION_ERROR. Decision 0023 names none of these reasons; the model uses the implementation's names. */
const invalid = (reason: string): Answer => ({ accepted: false, code: 'VALIDATION_ERROR', reason });
const NOT_FOUND = refused('NOT_FOUND');

const sameObligation = (a: Obligation, b: Obligation) => a.sourceSystem === b.sourceSystem && a.obligationReference === b.obligationReference;

export class ReferenceModel implements Ledger {
  // Read by the test to resolve what a command names (the n-th extension, a consent's revokedAt).
  readonly consents = new Map<ConsentNo, Consent>();
  readonly extensions: Extension[] = [];
  readonly bindings: Binding[] = [];
  private readonly accesses = new Map<string, Access>();

  // --- what the records say -------------------------------------------------

  /** Rule 1: an annulled extension is not in force. */
  private extensionsInForce(consent: ConsentNo): Extension[] {
    return this.extensions.filter((x) => x.consent === consent && !x.annulled);
  }

  /**
   * Decision 0054: the extensions, weighed in the order their credits were granted. One keeps nothing alive when its
   * credit was granted at or after the revocation (a revocation is kept without effect only for a credit granted before
   * it), or when an end in force of one weighed before it, itself keeping the consent, named its obligation as
   * superseding (the new obligation does not inherit the consent). Credits of one instant are weighed together: of
   * those still undecided, one no other names keeps the consent (in a ring of names, the first in credit order), and
   * the obligation its end names is superseding. Those ends are the consent's superseding obligations.
   */
  private weigh(consent: ConsentNo, extensions = this.extensionsInForce(consent)): { reasons: Map<string, string | null>; superseding: Set<string> } {
    const revokedAt = this.consents.get(consent)?.revokedAt ?? null;
    const reasons = new Map<string, string | null>();
    const superseding = new Set<string>();
    const instants = [...new Set(extensions.map((x) => x.creditGrantedAt))].sort((a, b) => a - b);
    for (const instant of instants) {
      let undecided = byCredit(extensions.filter((x) => x.creditGrantedAt === instant));
      for (const x of undecided) {
        if (revokedAt !== null && instant >= revokedAt) reasons.set(x.id, 'credit_granted_after_revocation');
        else if (superseding.has(x.reference)) reasons.set(x.id, 'superseding_obligation');
      }
      undecided = undecided.filter((x) => !reasons.has(x.id));
      while (undecided.length > 0) {
        const keeper = undecided.find((x) => !undecided.some((y) => y.end?.supersededBy === x.reference)) ?? undecided[0];
        reasons.set(keeper.id, null);
        const successor = keeper.end?.supersededBy ?? null;
        if (successor !== null) superseding.add(successor);
        for (const x of undecided) if (x !== keeper && x.reference === successor) reasons.set(x.id, 'superseding_obligation');
        undecided = undecided.filter((x) => !reasons.has(x.id));
      }
    }
    return { reasons, superseding };
  }

  private ineffectiveReason(x: Extension): string | null {
    return this.weigh(x.consent).reasons.get(x.id) ?? null;
  }

  /** The extensions in force that keep the consent for their obligation, in the order their credits were granted (decision 0054's tie rule). */
  private keeping(consent: ConsentNo): Extension[] {
    return byCredit(this.extensionsInForce(consent).filter((x) => this.ineffectiveReason(x) === null));
  }

  private anyActive(consent: ConsentNo): boolean {
    return this.keeping(consent).some((x) => !x.end);
  }

  /** Rule 2 and decision 0054: kept while an extension of a credit granted before it is active, effective otherwise. */
  private revocationEffective(consent: ConsentNo): boolean {
    return this.consents.get(consent)?.revokedAt != null && !this.anyActive(consent);
  }

  private lastEnd(consent: ConsentNo): End | null {
    // Decision 0054: of two ends at the same instant, the one whose credit was granted first names the basis.
    return this.keeping(consent).reduce<End | null>((last, x) => (x.end && (!last || x.end.endedAt > last.endedAt) ? x.end : last), null);
  }

  /**
   * Rule 11: a command that turns an effective revocation into a kept one records the correction, naming the
   * extension that now keeps the consent (the first, by credit, that did not before).
   */
  private recordCorrection(no: ConsentNo, keptBefore: Set<string>, wasEffective: boolean, now: number): void {
    if (!wasEffective || this.revocationEffective(no)) return;
    const reviving = this.keeping(no).find((x) => !x.end && !keptBefore.has(x.id))!;
    this.consents.get(no)!.corrections.push({ creditExtensionId: reviving.id, at: now });
  }

  private keptActive(no: ConsentNo): Set<string> {
    return new Set(this.keeping(no).filter((x) => !x.end).map((x) => x.id));
  }

  /** Rule 3: the window, closed from any revocation's revokedAt on. */
  private windowOpenAt(consent: Consent, at: number): boolean {
    return consent.grantedAt <= at && at <= consent.validUntil && !(consent.revokedAt !== null && consent.revokedAt <= at);
  }

  /** Rule 1: exactly its obligation, from creditGrantedAt until endedAt (exclusive), if it keeps the consent. */
  private coveringAt(consent: ConsentNo, obligation: Obligation, at: number): Extension | undefined {
    if (obligation.sourceSystem !== OBLIGATION_SOURCE_SYSTEM) return undefined;
    return this.keeping(consent).find(
      (x) => x.reference === obligation.obligationReference && x.creditGrantedAt <= at && (!x.end || at < x.end.endedAt),
    );
  }

  /** Rule 8: the consent enabled access for the obligation at `at`: in its window, or extended for exactly that obligation. */
  private enabledAt(no: ConsentNo, obligation: Obligation, at: number): boolean {
    const consent = this.consents.get(no)!;
    return at >= consent.grantedAt && (this.windowOpenAt(consent, at) || this.coveringAt(no, obligation, at) !== undefined);
  }

  /**
   * docs/reference/credit-extensions.md, "Superseding obligations": an obligation named by an end in force of an
   * extension that keeps this consent does not inherit it, unless an extension of its own, weighed before that one,
   * keeps it.
   */
  private supersedes(consent: ConsentNo, reference: string): boolean {
    return this.weigh(consent).superseding.has(reference) && !this.keeping(consent).some((x) => x.reference === reference);
  }

  /** Whether the extension, as the records stand, enables nothing: annulled, or kept as a fact without effect (decision 0054). */
  extensionKeepsNothing(id: string): boolean {
    const x = this.extensions.find((e) => e.id === id);
    return !x || x.annulled || this.ineffectiveReason(x) !== null;
  }

  /** Whether the binding, as the records stand, gives its obligation no claim: annulled, or to a consent whose facts no longer stand behind it. */
  bindingClaimsNothing(id: string): boolean {
    const b = this.bindings.find((x) => x.id === id);
    if (!b || b.annulled) return true;
    return b.kind === 'consent' && (this.supersedes(b.consent!, b.obligation.obligationReference) || !this.enabledAt(b.consent!, b.obligation, b.obligationGrantedAt));
  }

  // --- reads ------------------------------------------------------------------

  read(no: ConsentNo, now: number): ConsentRead | null {
    const consent = this.consents.get(no);
    if (!consent) return null;
    const inForce = this.extensionsInForce(no);
    const last = this.lastEnd(no);
    const effective = this.revocationEffective(no);
    const revocation =
      consent.revokedAt === null
        ? null
        : {
            revokedAt: consent.revokedAt,
            effective,
            effectiveAt: effective ? Math.max(consent.revokedAt, last?.endedAt ?? consent.revokedAt) : null,
            // Compared like the rest: the representation shows it, a correction sets it, rule 11 says which commands record
            // one, and the read reflects the corrected state instead of a correction notice; so it is as determined as `effective`.
            correctedAt: this.correctionsInForce(no, consent).reduce<number | null>((latest, c) => Math.max(latest ?? c.at, c.at), null),
          };
    const creditExtensions = byCredit(inForce).map((x) => ({
      creditExtensionId: x.id,
      objectiveCode: x.objectiveCode,
      creditOperationReference: x.reference,
      creditGrantedAt: x.creditGrantedAt,
      extendedAt: x.extendedAt,
      status: x.end ? ('ended' as const) : ('active' as const),
      endReason: x.end?.endReason ?? null,
      endedAt: x.end?.endedAt ?? null,
      supersededByObligationReference: x.end?.supersededBy ?? null,
      effective: this.ineffectiveReason(x) === null,
      ineffectiveReason: this.ineffectiveReason(x),
    }));
    const base = { grantedAt: consent.grantedAt, initialAccessValidUntil: consent.validUntil, revocation, creditExtensions };
    // Rule 10, in its order.
    if (revocation?.effective) return { ...base, status: 'revoked', retentionUntil: fiveYearsFrom(revocation.effectiveAt!), retentionBasis: 'revocation' };
    if (this.anyActive(no)) return { ...base, status: 'extended', retentionUntil: null, retentionBasis: null };
    if (now <= consent.validUntil) return { ...base, status: 'granted', retentionUntil: null, retentionBasis: null };
    const endedLater = last !== null && last.endedAt > consent.validUntil;
    return {
      ...base,
      status: 'expired',
      retentionUntil: fiveYearsFrom(endedLater ? last.endedAt : consent.validUntil),
      retentionBasis: endedLater ? last.endReason : 'loss_of_validity',
    };
  }

  /** A correction goes with the extension that caused it when that extension is annulled. */
  private correctionsInForce(no: ConsentNo, consent: Consent) {
    const inForce = new Set(this.extensionsInForce(no).map((x) => x.id));
    return consent.corrections.filter((c) => inForce.has(c.creditExtensionId));
  }

  /**
   * docs/reference/obligations.md, "The consent-code lookup", rule 9 and decision 0054: every binding in force, the
   * extensions' own among them, each to a consent only while the consent's facts say it enabled access for the
   * obligation when it was granted, and never to a consent the obligation superseded one of.
   */
  lookup(obligation: Obligation): Lookup {
    const claims = new Set<string>();
    for (const b of this.bindings) {
      if (b.annulled || !sameObligation(b.obligation, obligation)) continue;
      if (b.kind !== 'consent') claims.add(b.kind);
      else if (!this.supersedes(b.consent!, obligation.obligationReference) && this.enabledAt(b.consent!, obligation, b.obligationGrantedAt)) claims.add(consentCodeOf(b.consent!));
    }
    if (obligation.sourceSystem === OBLIGATION_SOURCE_SYSTEM) {
      for (const x of this.extensions) {
        if (!x.annulled && x.reference === obligation.obligationReference && this.ineffectiveReason(x) === null) claims.add(consentCodeOf(x.consent));
      }
    }
    if (claims.size === 0) return { result: 'unresolved', consentCode: null };
    if (claims.size > 1) return { result: 'ambiguous', consentCode: null };
    const [claim] = claims;
    if (claim === 'legacy_pre_redec') return { result: 'legacy_pre_redec', consentCode: '9'.repeat(20) };
    if (claim === 'no_applicable_consent') return { result: 'no_applicable_consent', consentCode: '0'.repeat(20) };
    return { result: 'consent_code', consentCode: claim };
  }

  // --- commands -----------------------------------------------------------------

  apply(action: Action, now: number): Answer {
    switch (action.type) {
      case 'grant':
        this.consents.set(action.consent, { customerId: action.customerId, grantedAt: action.grantedAt, validUntil: action.initialAccessValidUntil, revokedAt: null, corrections: [] });
        return ok;
      case 'revoke':
        return this.revoke(action, now);
      case 'registerExtension':
        return this.registerExtension(action, now);
      case 'endExtension':
        return this.endExtension(action, now);
      case 'annulExtension':
      case 'annulExtensionEnd':
        return this.annulExtension(action, now);
      case 'bind':
        return this.bind(action, now);
      case 'annulBinding':
        return this.annulBinding(action);
      case 'authorize':
        return this.authorize(action, now);
      case 'confirm':
        return this.confirm(action, now);
    }
  }

  /** docs/reference/revocations.md, decision 0017 (one revocation) and rule 12 (occurredAt bounds, which replace 0017's "no other bound in the past"). */
  private revoke(action: Extract<Action, { type: 'revoke' }>, now: number): Answer {
    const consent = this.consents.get(action.consent);
    if (!consent) return NOT_FOUND;
    if (consent.revokedAt !== null) return refused('redec_consent_already_revoked');
    const bound = occurredAtRefusal(action.occurredAt, now);
    if (bound) return bound;
    if (action.occurredAt < consent.grantedAt) return invalid('occurred_at_before_grant');
    consent.revokedAt = action.occurredAt;
    return ok;
  }

  /** docs/reference/credit-extensions.md, "Registering an extension": rule 6, in its order. */
  private registerExtension(action: Extract<Action, { type: 'registerExtension' }>, now: number): Answer {
    const consent = this.consents.get(action.consent);
    if (!consent) return NOT_FOUND;
    if (action.customerTenantId.toLowerCase() !== consent.customerId.toLowerCase()) return refused('redec_credit_extension_customer_mismatch');
    if (!GRANTED_OBJECTIVES.includes(action.objectiveCode)) return refused('redec_objective_not_granted');
    if (action.creditGrantedAt > now) return invalid('credit_granted_after_receipt');
    if (action.creditGrantedAt < consent.grantedAt || action.creditGrantedAt > consent.validUntil) return refused('redec_credit_granted_outside_initial_window');
    const reference = action.creditOperationReference;
    const candidate: Extension = {
      id: action.creditExtensionId,
      consent: action.consent,
      reference,
      objectiveCode: action.objectiveCode,
      creditGrantedAt: action.creditGrantedAt,
      extendedAt: now,
      annulled: false,
      end: null,
    };
    // Decision 0054: refused when, recorded, it would keep nothing for superseding an obligation of the consent.
    if (this.weigh(action.consent, [...this.extensionsInForce(action.consent), candidate]).reasons.get(candidate.id) === 'superseding_obligation') {
      return refused('redec_superseding_obligation_does_not_inherit_consent');
    }
    if (this.extensionsInForce(action.consent).some((x) => x.reference === reference && !x.end)) return refused('redec_credit_extension_already_registered');
    if (this.extensions.some((x) => !x.annulled && x.reference === reference && x.end)) return refused('redec_credit_extension_already_ended');
    if (consent.revokedAt !== null && action.creditGrantedAt >= consent.revokedAt) return refused('redec_credit_granted_after_revocation');
    // Non-empty whenever the credit precedes the accepted revokedAt, the revocation kept or not.
    if (consent.revokedAt !== null && !action.sourceReference?.trim()) return refused('redec_revocation_correction_requires_source_reference');
    const wasEffective = this.revocationEffective(action.consent);
    const keptBefore = this.keptActive(action.consent);
    this.extensions.push(candidate);
    this.recordCorrection(action.consent, keptBefore, wasEffective, now);
    return ok;
  }

  private extensionOf(consent: ConsentNo, id: string): Extension | undefined {
    return this.extensions.find((x) => x.consent === consent && x.id === id);
  }

  /** docs/reference/credit-extensions.md, "Ending an extension" (reported once, the superseding reference only with its reason) and rule 7. */
  private endExtension(action: Extract<Action, { type: 'endExtension' }>, now: number): Answer {
    const consent = this.consents.get(action.consent);
    const extension = this.extensionOf(action.consent, action.creditExtensionId);
    if (!consent || !extension) return NOT_FOUND;
    if (extension.annulled) return refused('redec_credit_extension_annulled');
    // Where the request's own consistency is checked is not stated; the model follows the implementation: before "reported once".
    const supersededBy = action.supersededByObligationReference ?? null;
    if (action.endReason !== 'superseded_by_new_obligation' && supersededBy !== null) return invalid('only_with_superseded_by_new_obligation');
    if (action.endReason === 'superseded_by_new_obligation' && supersededBy === null) return invalid('required');
    if (supersededBy === extension.reference) return invalid('superseding_obligation_is_the_ended_one');
    if (extension.end) return refused('redec_credit_extension_already_ended');
    const endedAt = action.occurredAt ?? now;
    const bound = occurredAtRefusal(endedAt, now);
    if (bound) return bound;
    if (endedAt < extension.creditGrantedAt) return invalid('occurred_at_before_credit_granted');
    extension.end = { endedAt, endReason: action.endReason, supersededBy };
    return ok;
  }

  /** Rule 13: an extension or its end, once; an annulled extension has nothing left to annul. */
  private annulExtension(action: Extract<Action, { type: 'annulExtension' | 'annulExtensionEnd' }>, now: number): Answer {
    const consent = this.consents.get(action.consent);
    const extension = this.extensionOf(action.consent, action.creditExtensionId);
    if (!consent || !extension) return NOT_FOUND;
    if (extension.annulled) return refused('redec_credit_extension_annulled');
    if (action.type === 'annulExtensionEnd' && !extension.end) return refused('redec_credit_extension_not_ended');
    const wasEffective = this.revocationEffective(action.consent);
    const keptBefore = this.keptActive(action.consent);
    if (action.type === 'annulExtension') extension.annulled = true;
    else extension.end = null;
    // Annulling an end that named a superseding obligation, or the extension of that end, lets that obligation keep the consent again.
    this.recordCorrection(action.consent, keptBefore, wasEffective, now);
    return ok;
  }

  /** docs/reference/obligations.md, "Binding an obligation", decision 0017 (source system, identical binding) and rule 8. */
  private bind(action: Extract<Action, { type: 'bind' }>, now: number): Answer {
    if (action.obligationGrantedAt > now + PROFILE.callerClockSkewMs) return invalid('obligation_granted_after_receipt');
    const same = (b: Binding) => !b.annulled && sameObligation(b.obligation, action.obligation) && b.kind === action.kind && b.consent === action.consent;
    if (action.kind === 'consent') {
      const consent = this.consents.get(action.consent!);
      if (!consent) return NOT_FOUND;
      if (action.obligation.sourceSystem !== OBLIGATION_SOURCE_SYSTEM) return refused('redec_obligation_source_system_mismatch');
      if (this.supersedes(action.consent!, action.obligation.obligationReference)) return refused('redec_superseding_obligation_does_not_inherit_consent');
      if (!this.enabledAt(action.consent!, action.obligation, action.obligationGrantedAt)) return refused('redec_consent_not_valid_at_obligation_grant');
    }
    if (this.bindings.some(same)) return ok;
    this.bindings.push({ id: action.bindingId, obligation: action.obligation, kind: action.kind, consent: action.consent, obligationGrantedAt: action.obligationGrantedAt, annulled: false });
    return ok;
  }

  private annulBinding(action: Extract<Action, { type: 'annulBinding' }>): Answer {
    const binding = this.bindings.find((b) => b.id === action.bindingId);
    if (!binding) return NOT_FOUND;
    if (binding.annulled) return refused('redec_binding_already_annulled');
    binding.annulled = true;
    return ok;
  }

  /**
   * Rule 4 at `at`, after the purpose check: why the consent did not enable this access then, or null. Used by
   * authorize (at its decision) and by confirm (rule 5).
   */
  private denyReasonAt(no: ConsentNo, access: Pick<Access, 'mode' | 'obligation' | 'objectiveCode'>, at: number): string | null {
    const consent = this.consents.get(no);
    if (!consent) return 'redec_consent_not_found';
    const { mode } = access;
    if (mode.consentAuthorizationMode === 'credit_lifecycle_extension' && mode.accessPurpose === 'evaluate_new_credit') {
      return 'redec_credit_extension_purpose_not_obligation_management';
    }
    if (mode.consentAuthorizationMode === 'initial_window') {
      if (consent.revokedAt !== null && consent.revokedAt <= at) return 'redec_consent_revoked';
      if (!this.windowOpenAt(consent, at)) return 'redec_initial_window_expired';
    } else {
      const covering = this.coveringAt(no, access.obligation, at);
      if (!covering) return this.revocationEffective(no) ? 'redec_consent_revoked' : 'redec_no_active_extension_for_obligation';
      // Rule 4 wants "the extension's objective" without naming the denial; like the implementation, it is the objective check of decision 0016.
      if (covering.objectiveCode !== access.objectiveCode) return 'redec_objective_not_granted';
    }
    // The scope and data category asked for are always the consent's in this test.
    if (!GRANTED_OBJECTIVES.includes(access.objectiveCode)) return 'redec_objective_not_granted';
    return null;
  }

  private authorize(action: Extract<Action, { type: 'authorize' }>, now: number): Answer {
    if (action.assertedAt > now + PROFILE.callerClockSkewMs) return invalid('asserted_at_after_receipt');
    const denyReasonCode = this.denyReasonAt(action.consent, action, now);
    const decision: AccessDecision = denyReasonCode
      ? { status: 'denied', denyReasonCode, expiresAt: null }
      : { status: 'authorized', denyReasonCode: null, expiresAt: now + PROFILE.authorizationTtlMs };
    this.accesses.set(action.redecAccessId, { ...action, decidedAt: now, expiresAt: decision.expiresAt, confirmed: false });
    return { accepted: true, decision };
  }

  /** docs/reference/accesses.md, "Confirming the outcome", decision 0016 (once, only authorized) and rule 5. */
  private confirm(action: Extract<Action, { type: 'confirm' }>, now: number): Answer {
    const access = this.accesses.get(action.redecAccessId);
    if (!access) return NOT_FOUND;
    if (access.expiresAt === null) return refused('redec_access_not_authorized');
    if (access.confirmed) return refused('redec_access_already_confirmed');
    if (action.outcome.kind === 'accessed') {
      const { accessedAt } = action.outcome;
      if (accessedAt > now + PROFILE.callerClockSkewMs) return invalid('accessed_at_after_receipt');
      if (accessedAt < access.decidedAt - PROFILE.callerClockSkewMs) return invalid('accessed_at_before_authorization');
      if (accessedAt > access.expiresAt) return refused('redec_authorization_expired');
      if (this.denyReasonAt(access.consent, access, Math.max(accessedAt, access.decidedAt))) return refused('redec_authorization_expired');
    }
    access.confirmed = true;
    return ok;
  }
}

/** Rule 7 and 12: a caller's `occurredAt` is not after the receipt nor further back than the profile's skew. */
function occurredAtRefusal(occurredAt: number, now: number): Answer | null {
  if (occurredAt > now) return invalid('occurred_at_after_receipt');
  if (now - occurredAt > PROFILE.maxOccurredAtSkewMs) return invalid('occurred_at_beyond_profile_skew');
  return null;
}

/** Decision 0054: extensions in the order their credits were granted, then by reference and id. */
function byCredit(extensions: Extension[]): Extension[] {
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...extensions].sort((a, b) => a.creditGrantedAt - b.creditGrantedAt || text(a.reference, b.reference) || text(a.id, b.id));
}

/** docs/reference/regulatory-representation.md, "Retention floor", and decision 0015: five calendar years in UTC, 29 February becoming 28 February. */
export function fiveYearsFrom(instant: number): number {
  const d = new Date(instant);
  const year = d.getUTCFullYear() + 5;
  const lastDay = new Date(Date.UTC(year, d.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(year, d.getUTCMonth(), Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}
