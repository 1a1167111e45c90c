import { conflict, notFound, unprocessable, validationError } from '@ledger/platform';
import { checkNotAfterReceipt } from '../consent/caller-instants';
import { Annulment } from '../consent/consent.events';
import { ConsentState } from '../consent/consent.state';
import { enabledForObligationAt, isSupersedingObligation } from '../consent/enablement';
import { AnnulRequest, supersedingObligationRefused } from '../consent/lifecycle.decider';
import { BindingKind, ObligationBinding, ObligationBindingAnnulled, ObligationBindings, ObligationBound } from './obligation.events';

/** docs/reference/obligations.md, "Binding an obligation". */
export interface BindObligationRequest {
  sourceSystem: string;
  obligationReference: string;
  kind: BindingKind;
  /** Required with kind `consent`, refused with the other kinds. */
  redecConsentId?: string | null;
  /** When the bank granted the obligation (epoch ms). */
  obligationGrantedAt: number;
}

export type BindDecision = { kind: 'bound'; event: ObligationBound } | { kind: 'already_bound'; binding: ObligationBinding };

/**
 * docs/reference/obligations.md, "Binding an obligation". `existing` is the
 * obligation's stream folded; `consent` is the one `redecConsentId` names (null
 * when the tenant has no such consent, or none is named). A consent binding is
 * recorded only when the consent enabled access for the obligation at
 * `obligationGrantedAt` (in its initial window and before any revocation, or
 * extended for exactly that obligation), and never for an obligation that
 * superseded one of the consent's: the bank would otherwise report a code the
 * consent does not cover. The same binding in force again answers it; a
 * different one is recorded beside it.
 */
export function decideBind(
  existing: ObligationBindings,
  request: BindObligationRequest,
  consent: ConsentState | null,
  policy: { callerClockSkewMs: number },
  ids: { bindingId: string },
  now: number,
): BindDecision {
  const { sourceSystem, obligationReference, kind, obligationGrantedAt } = request;
  const redecConsentId = request.redecConsentId ?? null;
  if (kind === 'consent' && redecConsentId === null) {
    throw validationError('A binding of kind consent names its consent.', { errors: [{ field: 'redecConsentId', reason: 'required' }] });
  }
  if (kind !== 'consent' && redecConsentId !== null) {
    throw validationError(`A binding of kind ${kind} names no consent.`, { errors: [{ field: 'redecConsentId', reason: 'not_for_binding_kind' }] });
  }
  checkNotAfterReceipt('obligationGrantedAt', 'obligation_granted_after_receipt', obligationGrantedAt, now, policy.callerClockSkewMs);
  const internalConsentCode = kind === 'consent' ? consentFor(request, consent).grant.internalConsentCode : null;

  const same = existing.bindings.find((binding) => binding.kind === kind && binding.redecConsentId === redecConsentId);
  if (same) return { kind: 'already_bound', binding: same };
  return {
    kind: 'bound',
    event: {
      type: 'ObligationBound',
      data: { bindingId: ids.bindingId, sourceSystem, obligationReference, kind, redecConsentId, internalConsentCode, obligationGrantedAt, boundAt: now },
    },
  };
}

/** A binding recorded by mistake is annulled, once. */
export function decideAnnulBinding(existing: ObligationBindings, bindingId: string, request: AnnulRequest, now: number): ObligationBindingAnnulled {
  const binding = existing.bindings.find((b) => b.bindingId === bindingId);
  if (!binding) {
    if (existing.annulled.some((b) => b.bindingId === bindingId)) throw conflict('redec_binding_already_annulled', 'This binding was already annulled.');
    throw notFound('binding');
  }
  const annulment: Annulment = { ...request, annulledAt: now };
  const { sourceSystem, obligationReference, redecConsentId } = binding;
  return { type: 'ObligationBindingAnnulled', data: { bindingId, sourceSystem, obligationReference, redecConsentId, ...annulment } };
}

/** The consent an obligation can be bound to: of its source system (frozen at publication), enabling access for it when it was granted. */
function consentFor(request: BindObligationRequest, consent: ConsentState | null): ConsentState {
  if (!consent) throw notFound('consent');
  if (consent.grant.obligationSourceSystem !== request.sourceSystem) {
    throw unprocessable('redec_obligation_source_system_mismatch', "The obligation's source system is not the one the consent was granted for.");
  }
  if (isSupersedingObligation(consent, request)) throw supersedingObligationRefused();
  if (!enabledForObligationAt(consent, request, request.obligationGrantedAt)) {
    throw unprocessable(
      'redec_consent_not_valid_at_obligation_grant',
      'The consent did not enable access for this obligation when it was granted: outside its initial window, after a revocation, and not extended for it.',
    );
  }
  return consent;
}
