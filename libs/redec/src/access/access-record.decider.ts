import { conflict, fieldRefused, notFound } from '@ledger/platform';
import { checkNotAfterReceipt } from '../consent/caller-instants';
import { ConsentState } from '../consent/consent.state';
import { ProcessingBlocks, processingBlockedAt } from '../rights/processing-blocks';
import { AccessDecision, AccessRequest, decideAccess, denyReasonAt } from './access.decider';
import { AccessConfirmed, AccessDecided, AccessOutcome, AccessRecord } from './access.events';

/** What the consent's Regulatory Profile says about accesses (docs/reference/limits.md, "Regulatory time limits"). */
export interface AccessPolicy {
  callerClockSkewMs: number;
  authorizationTtlMs: number;
}

export type AuthorizeOutcome = { replayed: true; decision: AccessDecided['data'] } | { replayed: false; event: AccessDecided };

/** The same request again answers its recorded decision; another body under the same sourceSystem + sourceReference is refused. */
export function repeatedDecision(existing: AccessRecord, requestSha256: string): Extract<AuthorizeOutcome, { replayed: true }> {
  if (existing.decision.requestSha256 !== requestSha256) {
    throw conflict('redec_access_request_conflict', 'This sourceSystem and sourceReference already identify a different access request.');
  }
  return { replayed: true, decision: existing.decision };
}

/**
 * An access request is identified by its sourceSystem + sourceReference
 * (docs/reference/accesses.md, "The answer"). The same request again answers
 * the recorded decision; the same pair with another body is a conflict. A new
 * request is decided on the consent as it stands now and on the data
 * subject's blocks (a block in force denies it whatever the consent says),
 * and an authorization may be used until `expiresAt`.
 */
export function decideAuthorize(input: {
  existing: AccessRecord | null;
  consent: ConsentState | null;
  /** The blocks of the consent's data subject (decision 0068). */
  processingBlocks: ProcessingBlocks | null;
  consentRevision: number | null;
  policy: AccessPolicy;
  request: AccessRequest;
  requestSha256: string;
  redecAccessId: string;
  now: number;
}): AuthorizeOutcome {
  const { existing, consent, request, requestSha256, policy, now } = input;
  if (existing) return repeatedDecision(existing, requestSha256);
  checkNotAfterReceipt('reportingObligation.assertedAt', 'asserted_at_after_receipt', request.reportingObligation.assertedAt, now, policy.callerClockSkewMs);
  const decision: AccessDecision =
    consent && processingBlockedAt(input.processingBlocks, now) ? { status: 'denied', denyReasonCode: 'data_subject_processing_blocked' } : decideAccess(consent, request, now);
  return {
    replayed: false,
    event: {
      type: 'AccessDecided',
      data: {
        redecAccessId: input.redecAccessId,
        redecConsentId: request.redecConsentId,
        request,
        requestSha256,
        status: decision.status,
        denyReasonCode: decision.status === 'denied' ? decision.denyReasonCode : null,
        decidedAt: now,
        expiresAt: decision.status === 'authorized' ? now + policy.authorizationTtlMs : null,
        consentRevision: consent ? input.consentRevision : null,
      },
    },
  };
}

/**
 * docs/reference/accesses.md, "Confirming the outcome": only an authorized
 * access is confirmed, once, with exactly one outcome kind. `accessed` is
 * refused once the authorization expired, or when the consent had stopped
 * enabling that access by `accessedAt` (a revocation, the window's end, the
 * obligation's end): the registry must not have been queried then. `failed` and
 * `cancelled` report that it was not, and are always taken. A block of the
 * data subject in force at `accessedAt` refuses it as the consent's end does.
 */
export function decideConfirm(
  record: AccessRecord | null,
  consent: ConsentState | null,
  processingBlocks: ProcessingBlocks | null,
  policy: AccessPolicy,
  outcome: AccessOutcome,
  now: number,
): AccessConfirmed {
  if (!record) throw notFound('access');
  const { decision } = record;
  if (decision.status !== 'authorized') throw conflict('redec_access_not_authorized', 'Only an authorized access can be confirmed.');
  if (record.confirmation) throw conflict('redec_access_already_confirmed', 'The outcome of this access was already confirmed.');
  if (outcome.kind === 'accessed') {
    const { accessedAt } = outcome;
    if (accessedAt < decision.decidedAt - policy.callerClockSkewMs) {
      throw fieldRefused('outcome.accessedAt', 'accessed_at_before_authorization', 'accessedAt precedes the authorization.');
    }
    checkNotAfterReceipt('outcome.accessedAt', 'accessed_at_after_receipt', accessedAt, now, policy.callerClockSkewMs);
    // An access a little before the decision (clock skew) was covered by it: the consent is judged from the decision on.
    const at = Math.max(accessedAt, decision.decidedAt);
    if ((decision.expiresAt !== null && accessedAt > decision.expiresAt) || !consent || denyReasonAt(consent, decision.request, at) !== null || processingBlockedAt(processingBlocks, at)) {
      throw conflict(
        'redec_authorization_expired',
        "The authorization could no longer be used at accessedAt: it had expired, the consent had stopped enabling this access, or the data subject's processing was blocked.",
      );
    }
  }
  return { type: 'AccessConfirmed', data: { redecAccessId: decision.redecAccessId, redecConsentId: decision.redecConsentId, outcome, confirmedAt: now } };
}

/** `accessed` needs `accessedAt`; `failed` and `cancelled` carry nothing else (docs/reference/accesses.md, "Confirming the outcome"). */
export function accessOutcome(input: { kind: AccessOutcome['kind']; accessedAt?: number }): AccessOutcome {
  if (input.kind === 'accessed') {
    if (input.accessedAt === undefined) throw fieldRefused('outcome.accessedAt', 'required', 'An `accessed` outcome needs accessedAt.');
    return { kind: 'accessed', accessedAt: input.accessedAt };
  }
  if (input.accessedAt !== undefined) {
    throw fieldRefused('outcome.accessedAt', 'only_with_accessed', 'accessedAt is only sent with the outcome `accessed`.');
  }
  return { kind: input.kind };
}
