import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EmbedSessionStatus } from './embed-session.decider';
import { EmbedDecision } from './embed-session.events';

/**
 * The signed result the data subject's browser carries back to the
 * integrator's `returnUrl`: only the session, the status, for a session of
 * several configurations which were `accepted` and which `declined`, and the
 * integrator's dynamic reference; never consent or identity data. The
 * signature is `v1,` + base64 HMAC-SHA256, keyed with the bytes of the
 * session's result secret, over the exact query string that precedes
 * `&signature=`; the integrator recomputes it before trusting the status
 * (docs/embedded-capture.md). The status endpoint remains the authority.
 */

const SECRET_PREFIX = 'embsec_';

export function generateResultSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not an embed result secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export interface EmbedResult {
  sessionId: string;
  status: Extract<EmbedSessionStatus, 'accepted' | 'declined' | 'partially_accepted'>;
  /** Each configuration's decision, for a session that offered several; null for one that offered one (`status` says it). */
  items: Array<{ configurationId: string; decision: EmbedDecision }> | null;
  dynamicReference: string | null;
  /** Seconds since the epoch: the decision's instant, so a stale redirect can be refused. */
  timestamp: number;
}

export function signResult(secret: string, signedQuery: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(signedQuery, 'utf8').digest('base64')}`;
}

/** `returnUrl` with the result appended to its own query; the signature is the last parameter. */
export function resultRedirectUrl(returnUrl: string, secret: string, result: EmbedResult): string {
  const url = new URL(returnUrl);
  url.searchParams.set('embed_session_id', result.sessionId);
  url.searchParams.set('status', result.status);
  if (result.items !== null) {
    // Configuration ids are UUIDs: a comma cannot be part of one.
    for (const decision of ['accepted', 'declined'] as const) {
      url.searchParams.set(decision, result.items.filter((item) => item.decision === decision).map((item) => item.configurationId).join(','));
    }
  }
  if (result.dynamicReference !== null) url.searchParams.set('reference', result.dynamicReference);
  url.searchParams.set('timestamp', String(result.timestamp));
  const signedQuery = url.search.slice(1);
  return `${url.toString()}&signature=${encodeURIComponent(signResult(secret, signedQuery))}`;
}

/** What an integrator does with the redirect it receives, also used by our tests. */
export function verifyResultQuery(secret: string, rawQuery: string): boolean {
  const at = rawQuery.lastIndexOf('&signature=');
  if (at < 0) return false;
  const presented = Buffer.from(decodeURIComponent(rawQuery.slice(at + '&signature='.length)));
  const expected = Buffer.from(signResult(secret, rawQuery.slice(0, at)));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
