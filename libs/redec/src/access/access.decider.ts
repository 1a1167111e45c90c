import type { ProtectedValue } from '@ledger/ledger';
import { fieldRefused } from '@ledger/platform';
import { ConsentState } from '../consent/consent.state';
import { extensionCovering, initialWindowClosedAt, revocationEffect } from '../consent/enablement';

export type ConsentAuthorizationMode = 'initial_window' | 'credit_lifecycle_extension';
export type AccessPurpose = 'manage_existing_obligation' | 'evaluate_new_credit';

/** docs/reference/accesses.md, "Authorizing an access", after its shape was validated. */
export interface AccessRequest {
  authorizationBasis: 'consent';
  consentAuthorizationMode: ConsentAuthorizationMode;
  redecConsentId: string;
  dataCategoryCode: string;
  scopeId: string;
  objectiveCode: string;
  reportingObligation: { status: string; sourceSystem: string; sourceReference: string; assertedAt: number };
  sourceSystem: string;
  sourceReference: string;
  accessPurpose?: AccessPurpose;
  /** A third party that queries the registry on the bank's behalf, reported in RDC31; its RUT kept only protected. */
  mandatary?: { identifierRut: ProtectedValue };
}

/** An access request as sent: the mandatary's RUT as typed. */
export type AccessRequestInput = Omit<AccessRequest, 'mandatary'> & { mandatary?: { identifierRutInput: string } };

/** Every reason an access is denied; each is a business decision, never an error (docs/reference/accesses.md, "Deny reasons"). */
export const DENY_REASON_CODES = [
  'redec_consent_not_found',
  'redec_consent_revoked',
  'redec_initial_window_expired',
  'redec_credit_extension_purpose_not_obligation_management',
  'redec_no_active_extension_for_obligation',
  'redec_scope_not_granted',
  'redec_data_category_not_granted',
  'redec_objective_not_granted',
  'data_subject_processing_blocked',
] as const;
export type DenyReasonCode = (typeof DENY_REASON_CODES)[number];

export type AccessDecision = { status: 'authorized' } | { status: 'denied'; denyReasonCode: DenyReasonCode };

/**
 * docs/reference/accesses.md, "What is weighed": `accessPurpose` belongs to
 * `credit_lifecycle_extension` only, which requires it. A malformed request is
 * an error; everything else is a decision.
 */
export function checkAccessRequest(request: Pick<AccessRequest, 'consentAuthorizationMode' | 'accessPurpose'>): void {
  if (request.consentAuthorizationMode === 'initial_window' && request.accessPurpose !== undefined) {
    throw fieldRefused('accessPurpose', 'not_with_initial_window', 'accessPurpose is only sent with consentAuthorizationMode credit_lifecycle_extension.');
  }
  if (request.consentAuthorizationMode === 'credit_lifecycle_extension' && request.accessPurpose === undefined) {
    throw fieldRefused('accessPurpose', 'required', 'credit_lifecycle_extension requires accessPurpose.');
  }
}

/**
 * Whether this access may proceed now. Only an explicit `authorized` lets the
 * reporter query the registry; anything the rules cannot establish is denied.
 */
export function decideAccess(consent: ConsentState | null, request: AccessRequest, now: number): AccessDecision {
  const deny = (denyReasonCode: DenyReasonCode): AccessDecision => ({ status: 'denied', denyReasonCode });
  if (!consent) return deny('redec_consent_not_found');
  // An auditable denial, decided before anything else about the consent (docs/reference/accesses.md, "What is weighed").
  if (request.accessPurpose === 'evaluate_new_credit') return deny('redec_credit_extension_purpose_not_obligation_management');
  const reason = denyReasonAt(consent, request, now);
  if (reason) return deny(reason);

  const scope = consent.grant.scopes.find((s) => s.scopeId === request.scopeId);
  if (!scope) return deny('redec_scope_not_granted');
  if (scope.dataCategoryCode !== request.dataCategoryCode) return deny('redec_data_category_not_granted');
  if (!consent.grant.objectiveCodes.includes(request.objectiveCode)) return deny('redec_objective_not_granted');
  return { status: 'authorized' };
}

/**
 * Why the consent did not enable this access at `at`, as its facts now
 * stand, or null when it did: in `initial_window` mode the window, which any
 * revocation closes; in `credit_lifecycle_extension` mode an extension
 * covering exactly the obligation, with the access's objective. The same
 * rule decides an authorization and whether its confirmation came too late.
 */
export function denyReasonAt(
  consent: ConsentState,
  request: Pick<AccessRequest, 'consentAuthorizationMode' | 'reportingObligation' | 'objectiveCode'>,
  at: number,
): DenyReasonCode | null {
  if (request.consentAuthorizationMode === 'initial_window') return initialWindowClosedAt(consent, at);
  const { sourceSystem, sourceReference } = request.reportingObligation;
  const extension = extensionCovering(consent, { sourceSystem, obligationReference: sourceReference }, at);
  if (!extension) return revocationEffect(consent)?.effective ? 'redec_consent_revoked' : 'redec_no_active_extension_for_obligation';
  // The extension covers only the exact obligation it arose from, under its own objective.
  if (extension.objectiveCode !== request.objectiveCode) return 'redec_objective_not_granted';
  return null;
}
