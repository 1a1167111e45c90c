import { timingSafeEqual } from 'node:crypto';
import { conflict, sha256Hex } from '@ledger/platform';
import { EmbedDecision, EmbedOutcome, EmbedSessionDecided, EmbedSessionEvent, EmbedSessionItem, EmbedSessionOpened } from './embed-session.events';

export type EmbedSessionStatus = 'open' | EmbedOutcome | 'expired';

type OpenedData = EmbedSessionOpened['data'];

export interface EmbedSession extends Readonly<Omit<OpenedData, keyof EmbedSessionItem | 'items'>> {
  /** What the page offers, in the order it shows them. */
  items: readonly EmbedSessionItem[];
  /** `decisions` holds one decision per item, in the same order. */
  decision: { outcome: EmbedOutcome; decisions: EmbedDecision[]; decidedAt: number } | null;
}

export function evolveEmbedSession(state: EmbedSession | null, event: EmbedSessionEvent): EmbedSession | null {
  switch (event.type) {
    case 'EmbedSessionOpened': {
      if ('items' in event.data) {
        const { items, ...session } = event.data;
        return { ...session, items, decision: null };
      }
      const { interactionId, configurationId, consentKind, consentId, ...session } = event.data;
      return { ...session, items: [{ interactionId, configurationId, consentKind, consentId }], decision: null };
    }
    case 'EmbedSessionDecided': {
      const { outcome, decidedAt } = event.data;
      // A session of one item decided before `decisions` was recorded: its outcome is that item's decision.
      const decisions = event.data.decisions ?? [outcome as EmbedDecision];
      return state && { ...state, decision: { outcome, decisions, decidedAt } };
    }
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
  return sha256Hex(token);
}

/** Compared in constant time: the token is the page's only credential. */
export function pageTokenMatches(session: { pageTokenSha256: string }, token: string): boolean {
  const expected = Buffer.from(session.pageTokenSha256, 'hex');
  const presented = Buffer.from(pageTokenSha256(token), 'hex');
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

/** The data subject's decision on every item: once, while the session is open. */
export function decideEmbedSession(session: EmbedSession, decisions: EmbedDecision[], now: number): EmbedSessionDecided {
  assertEmbedSessionOpen(session, now);
  // The page's form asks one decision per item; anything else is not a form the page served.
  if (decisions.length !== session.items.length) throw new Error(`embed session ${session.sessionId} has ${session.items.length} items, ${decisions.length} decisions given`);
  return { type: 'EmbedSessionDecided', data: { sessionId: session.sessionId, outcome: outcomeOf(decisions), decisions, decidedAt: now } };
}

/** Only an open session takes a decision: an expired one, or one already decided, is refused. */
export function assertEmbedSessionOpen(session: EmbedSession, now: number): void {
  const status = embedSessionStatus(session, now);
  if (status === 'expired') throw conflict('embed_session_expired', 'This consent session has expired; the integrator must open a new one.');
  if (status !== 'open') throw conflict('embed_session_already_used', 'A decision was already recorded for this consent session.');
}

function outcomeOf(decisions: readonly EmbedDecision[]): EmbedOutcome {
  if (decisions.every((d) => d === 'accepted')) return 'accepted';
  if (decisions.every((d) => d === 'declined')) return 'declined';
  return 'partially_accepted';
}
