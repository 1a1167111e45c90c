import type { Annulment } from '../consent/consent.events';

/**
 * What the bank confirmed a granted obligation is reported under
 * (docs/reference/obligations.md, "Binding an obligation").
 * `legacy_pre_redec` and `no_applicable_consent` are kinds, not codes: their
 * twenty 9s and twenty 0s are written only when the lookup answers.
 */
export type BindingKind = 'consent' | 'legacy_pre_redec' | 'no_applicable_consent';
export const BINDING_KINDS: readonly BindingKind[] = ['consent', 'legacy_pre_redec', 'no_applicable_consent'];

/** One binding of an obligation (its source system and reference), as recorded. */
export interface ObligationBinding {
  bindingId: string;
  sourceSystem: string;
  obligationReference: string;
  kind: BindingKind;
  /** Set only for kind `consent`. */
  redecConsentId: string | null;
  /** The consent's code, frozen when bound; set only for kind `consent`. */
  internalConsentCode: string | null;
  /** When the bank granted the obligation: the consent must have enabled access for it then. */
  obligationGrantedAt: number;
  boundAt: number;
}

/**
 * Appended to the obligation's own stream when the bank confirms the obligation
 * was granted. A second, different binding is appended too and makes the lookup
 * `ambiguous` (docs/reference/obligations.md, "The consent-code lookup"): the
 * disagreement is a fact the bank has to reconcile, not one the service
 * settles.
 */
export interface ObligationBound {
  type: 'ObligationBound';
  data: ObligationBinding;
}

/** A binding recorded by mistake: the lookup behaves as if it had never been recorded; the fact stays for the audit. */
export interface ObligationBindingAnnulled {
  type: 'ObligationBindingAnnulled';
  data: Pick<ObligationBinding, 'bindingId' | 'sourceSystem' | 'obligationReference' | 'redecConsentId'> & Annulment;
}

export type ObligationEvent = ObligationBound | ObligationBindingAnnulled;

/** An obligation's stream folded: its bindings in force, in the order recorded, and those annulled. */
export interface ObligationBindings {
  bindings: ObligationBinding[];
  annulled: ObligationBinding[];
}

export function evolveObligationBindings(state: ObligationBindings | null, event: ObligationEvent): ObligationBindings {
  const { bindings, annulled } = state ?? { bindings: [], annulled: [] };
  switch (event.type) {
    case 'ObligationBound':
      return { bindings: [...bindings, event.data], annulled };
    case 'ObligationBindingAnnulled': {
      const { bindingId } = event.data;
      return { bindings: bindings.filter((b) => b.bindingId !== bindingId), annulled: [...annulled, ...bindings.filter((b) => b.bindingId === bindingId)] };
    }
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
}
