import { AccessRequest, DenyReasonCode } from './access.decider';

export const ACCESS_OUTCOME_KINDS = ['accessed', 'failed', 'cancelled'] as const;
export type AccessOutcomeKind = (typeof ACCESS_OUTCOME_KINDS)[number];

/** Exactly one kind; `accessed` carries when the bank queried the registry (docs/reference/accesses.md, "Confirming the outcome"). */
export type AccessOutcome = { kind: 'accessed'; accessedAt: number } | { kind: 'failed' | 'cancelled' };

/**
 * A decision is a fact, the first of the access's stream
 * (docs/reference/accesses.md, "The answer"). It keeps the request it answered,
 * so a repeat of the same request gets this same decision and an auditor sees
 * what was asked, and the consent revision it was decided on (null when no
 * consent was found).
 */
export interface AccessDecided {
  type: 'AccessDecided';
  data: {
    redecAccessId: string;
    redecConsentId: string;
    request: AccessRequest;
    requestSha256: string;
    status: 'authorized' | 'denied';
    denyReasonCode: DenyReasonCode | null;
    decidedAt: number;
    /** Until when an `authorized` decision may be used to query the registry (the profile's authorizationTtlMs after decidedAt); null when denied. */
    expiresAt: number | null;
    consentRevision: number | null;
  };
}

/** What the bank reports after querying the registry, once per authorized access (docs/reference/accesses.md, "Confirming the outcome"). */
export interface AccessConfirmed {
  type: 'AccessConfirmed';
  /** The consent is repeated here so that every fact of an access names the consent it used (audit replay). */
  data: { redecAccessId: string; redecConsentId: string; outcome: AccessOutcome; confirmedAt: number };
}

export type AccessEvent = AccessDecided | AccessConfirmed;

export interface AccessRecord {
  decision: AccessDecided['data'];
  confirmation: AccessConfirmed['data'] | null;
}

export function evolveAccess(state: AccessRecord | null, event: AccessEvent): AccessRecord | null {
  switch (event.type) {
    case 'AccessDecided':
      return { decision: event.data, confirmation: null };
    case 'AccessConfirmed':
      return state && { ...state, confirmation: event.data };
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
}
