import { notFound, unprocessable, validationError } from '@ledger/platform';
import { ConsentState } from '../consent/consent.state';
import { BindingKind, ObligationBinding, ObligationBound } from './obligation.events';

/** CONTRACT.md, "Reportable-obligation bindings". */
export interface BindObligationRequest {
  sourceSystem: string;
  obligationReference: string;
  kind: BindingKind;
  /** Required with kind `consent`, refused with the other kinds. */
  redecConsentId?: string | null;
}

export type BindDecision = { kind: 'bound'; event: ObligationBound } | { kind: 'already_bound'; binding: ObligationBinding };

/**
 * Spec 2.11. `existing` are the bindings already recorded for the
 * obligation; `consent` is the one `redecConsentId` names (null when the
 * tenant has no such consent, or none is named). The same binding again
 * answers the first one; a different one is recorded beside it.
 */
export function decideBind(
  existing: readonly ObligationBinding[],
  request: BindObligationRequest,
  consent: ConsentState | null,
  ids: { bindingId: string },
  now: number,
): BindDecision {
  const { sourceSystem, obligationReference, kind } = request;
  const redecConsentId = request.redecConsentId ?? null;
  if (kind === 'consent' && redecConsentId === null) {
    throw validationError('A binding of kind consent names its consent.', { errors: [{ field: 'redecConsentId', reason: 'required' }] });
  }
  if (kind !== 'consent' && redecConsentId !== null) {
    throw validationError(`A binding of kind ${kind} names no consent.`, { errors: [{ field: 'redecConsentId', reason: 'not_for_binding_kind' }] });
  }
  const internalConsentCode = kind === 'consent' ? consentFor(sourceSystem, consent).grant.internalConsentCode : null;

  const same = existing.find((binding) => binding.kind === kind && binding.redecConsentId === redecConsentId);
  if (same) return { kind: 'already_bound', binding: same };
  return {
    kind: 'bound',
    event: { type: 'ObligationBound', data: { bindingId: ids.bindingId, sourceSystem, obligationReference, kind, redecConsentId, internalConsentCode, boundAt: now } },
  };
}

/** The consent an obligation of `sourceSystem` can be bound to: its obligation source system was frozen at publication. */
function consentFor(sourceSystem: string, consent: ConsentState | null): ConsentState {
  if (!consent) throw notFound('consent');
  if (consent.grant.obligationSourceSystem !== sourceSystem) {
    throw unprocessable('redec_obligation_source_system_mismatch', "The obligation's source system is not the one the consent was granted for.");
  }
  return consent;
}
