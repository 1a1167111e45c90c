import { conflict } from '@ledger/platform';

/**
 * The bank opened the privacy center for a customer it had authenticated
 * (decision 0076). The page's token is kept only as its hash. Unlike a
 * consent page's session, this one is not used up by an action: the person
 * may look, revoke and file requests until it expires.
 */
export interface PrivacyCenterSessionOpened {
  type: 'PrivacyCenterSessionOpened';
  data: {
    sessionId: string;
    customerId: string;
    pageTokenSha256: string;
    /** How the bank established who the person is: what a revocation made on the page records as its identityAssurance. */
    identityAssurance: string;
    /** The bank's page the person goes back to; its origin alone may frame the center. */
    returnUrl: string | null;
    openedAt: number;
    expiresAt: number;
  };
}

/** The person closed the session on the page (on a shared computer, say), or the bank ended it: from then on its link and cookie open nothing. */
export interface PrivacyCenterSessionEnded {
  type: 'PrivacyCenterSessionEnded';
  data: { sessionId: string; endedAt: number };
}

export type PrivacyCenterSessionEvent = PrivacyCenterSessionOpened | PrivacyCenterSessionEnded;

export type PrivacyCenterSession = Readonly<PrivacyCenterSessionOpened['data'] & { endedAt: number | null }>;

export function evolvePrivacyCenterSession(state: PrivacyCenterSession | null, event: PrivacyCenterSessionEvent): PrivacyCenterSession | null {
  switch (event.type) {
    case 'PrivacyCenterSessionOpened':
      return { ...event.data, endedAt: null };
    case 'PrivacyCenterSessionEnded':
      return state && { ...state, endedAt: event.data.endedAt };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** A session is over once the person ended it, and from `expiresAt` on (expiry is not a fact), for looking and for acting alike. */
export function assertPrivacyCenterSessionOpen(session: PrivacyCenterSession, now: number): void {
  if (session.endedAt !== null) throw conflict('privacy_center_session_ended', 'This privacy center session was ended; the bank must open a new one.');
  if (now >= session.expiresAt) throw conflict('privacy_center_session_expired', 'This privacy center session has expired; the bank must open a new one.');
}

/** Ending a session records its end while it is open; one already ended or expired is over already, and nothing is recorded. */
export function decideEndPrivacyCenterSession(session: PrivacyCenterSession, now: number): PrivacyCenterSessionEnded | null {
  if (session.endedAt !== null || now >= session.expiresAt) return null;
  return { type: 'PrivacyCenterSessionEnded', data: { sessionId: session.sessionId, endedAt: now } };
}

/** What the person asked of a consent on the page, and what was recorded. */
export type RevocationOutcome =
  /** The consent stops enabling new accesses now. */
  | 'revoked'
  /** Recorded, and kept without effect while a credit extension keeps the consent (an `extended` consent is not revocable); it takes effect when the last one ends. */
  | 'revocation_kept';
