import { createHash, timingSafeEqual } from 'node:crypto';
import { conflict } from '@ledger/platform';
import { EmbedSessionDecided, EmbedSessionEvent, EmbedSessionOpened } from './embed-session.events';

export type EmbedSessionStatus = 'open' | 'accepted' | 'declined' | 'expired';
export type EmbedDecision = EmbedSessionDecided['data']['outcome'];

export interface EmbedSession extends Readonly<EmbedSessionOpened['data']> {
  decision: { outcome: EmbedDecision; decidedAt: number } | null;
}

export function evolveEmbedSession(state: EmbedSession | null, event: EmbedSessionEvent): EmbedSession | null {
  switch (event.type) {
    case 'EmbedSessionOpened':
      return { ...event.data, decision: null };
    case 'EmbedSessionDecided':
      return state && { ...state, decision: { outcome: event.data.outcome, decidedAt: event.data.decidedAt } };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** Expiry is not a fact: an undecided session is expired from `expiresAt` on, whether or not anyone looked. */
export function embedSessionStatus(session: EmbedSession, now: number): EmbedSessionStatus {
  if (session.decision) return session.decision.outcome;
  return now >= session.expiresAt ? 'expired' : 'open';
}

export function pageTokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compared in constant time: the token is the page's only credential. */
export function pageTokenMatches(session: EmbedSession, token: string): boolean {
  const expected = Buffer.from(session.pageTokenSha256, 'hex');
  const presented = Buffer.from(pageTokenSha256(token), 'hex');
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

/** The data subject's decision: once, while the session is open. */
export function decideEmbedSession(session: EmbedSession, outcome: EmbedDecision, now: number): EmbedSessionDecided {
  const status = embedSessionStatus(session, now);
  if (status === 'expired') throw conflict('embed_session_expired', 'This consent session has expired; the integrator must open a new one.');
  if (status !== 'open') throw conflict('embed_session_already_used', 'A decision was already recorded for this consent session.');
  return { type: 'EmbedSessionDecided', data: { sessionId: session.sessionId, outcome, decidedAt: now } };
}
