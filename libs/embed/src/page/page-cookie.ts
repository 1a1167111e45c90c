import type { CookieSerializeOptions } from '@fastify/cookie';

/**
 * The cookie that holds the page token once the browser has exchanged the
 * URL's token for it (docs/decisions/0025-log-redaction-and-the-consent-page-cookie.md).
 * `__Secure-`: browsers keep it only from a secure origin (https, or
 * localhost), so nothing on a plain-http path can plant one.
 */
export const CONSENT_PAGE_COOKIE = '__Secure-consent-page';
/** The privacy center's, held the same way (decision 0076). */
export const PRIVACY_CENTER_COOKIE = '__Secure-privacy-center';

/**
 * How the token is handed to the browser for one session's page and its
 * form posts, and for nothing else:
 * - `path` is the session's page, so no other page of the service sees it;
 * - `httpOnly`: no script reads it (the page has none, and allows none);
 * - `sameSite: none` and `partitioned`: the page lives in the integrator's
 *   frame, a third-party context where a `Strict` or `Lax` cookie is neither
 *   stored nor sent, and `Strict` is not sent either after the integrator's
 *   own link leads to the page; `Partitioned` keys it to the site on top, so
 *   it never follows the person elsewhere. Cross-site posts are refused by
 *   the decision route's Origin and Sec-Fetch-Site checks, not by SameSite;
 * - no `maxAge`: it ends with the browser; the service decides what the
 *   token is worth (until the session is decided or expires).
 */
export function pageCookieOptions(path: string): CookieSerializeOptions {
  return { path, httpOnly: true, secure: true, sameSite: 'none', partitioned: true };
}
