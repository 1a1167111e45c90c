import { conflict, fieldRefused, notFound } from '@ledger/platform';
import { ConsentState } from '../consent/consent.state';
import { AccessRequest, decideAccess } from './access.decider';
import { AccessConfirmed, AccessDecided, AccessOutcome, AccessRecord } from './access.events';

/**
 * How far ahead of the service clock a caller's instant may be. The bank's
 * clock is not ours: an `accessedAt` taken right after our decision, or an
 * `assertedAt` taken right before the request, can read a little later than
 * our clock without being false.
 */
export const CALLER_CLOCK_TOLERANCE_MS = 5 * 60_000;

export type AuthorizeOutcome = { replayed: true; decision: AccessDecided['data'] } | { replayed: false; event: AccessDecided };

/**
 * Spec 2.8 and CONTRACT: an access request is identified by its
 * sourceSystem + sourceReference. The same request again answers the
 * recorded decision; the same pair with another body is a conflict. A new
 * request is decided on the consent as it stands now.
 */
export function decideAuthorize(input: {
  existing: AccessRecord | null;
  consent: ConsentState | null;
  consentRevision: number | null;
  request: AccessRequest;
  requestSha256: string;
  redecAccessId: string;
  now: number;
}): AuthorizeOutcome {
  const { existing, consent, request, requestSha256, now } = input;
  if (existing) {
    if (existing.decision.requestSha256 !== requestSha256) {
      throw conflict('redec_access_request_conflict', 'This sourceSystem and sourceReference already identify a different access request.');
    }
    return { replayed: true, decision: existing.decision };
  }
  if (request.reportingObligation.assertedAt > now + CALLER_CLOCK_TOLERANCE_MS) {
    throw fieldRefused('reportingObligation.assertedAt', 'asserted_at_after_receipt', 'reportingObligation.assertedAt is later than the receipt of the request.');
  }
  const decision = decideAccess(consent, request, now);
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
        consentRevision: consent ? input.consentRevision : null,
      },
    },
  };
}

/** Spec 2.9 and rule 10: only an authorized access is confirmed, once, with exactly one outcome kind. */
export function decideConfirm(record: AccessRecord | null, outcome: AccessOutcome, now: number): AccessConfirmed {
  if (!record) throw notFound('access');
  const { decision } = record;
  if (decision.status !== 'authorized') throw conflict('redec_access_not_authorized', 'Only an authorized access can be confirmed.');
  if (record.confirmation) throw conflict('redec_access_already_confirmed', 'The outcome of this access was already confirmed.');
  if (outcome.kind === 'accessed') {
    if (outcome.accessedAt < decision.decidedAt - CALLER_CLOCK_TOLERANCE_MS) {
      throw fieldRefused('outcome.accessedAt', 'accessed_at_before_authorization', 'accessedAt precedes the authorization.');
    }
    if (outcome.accessedAt > now + CALLER_CLOCK_TOLERANCE_MS) {
      throw fieldRefused('outcome.accessedAt', 'accessed_at_after_receipt', 'accessedAt is later than the receipt of the confirmation.');
    }
  }
  return { type: 'AccessConfirmed', data: { redecAccessId: decision.redecAccessId, redecConsentId: decision.redecConsentId, outcome, confirmedAt: now } };
}

/** Spec 2.9: `accessed` needs `accessedAt`; `failed` and `cancelled` carry nothing else. */
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
