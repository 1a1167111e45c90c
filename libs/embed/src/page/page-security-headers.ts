import { createHash } from 'node:crypto';
import { PAGE_STYLESHEET, accentStylesheet } from './page-html';

/** A CSP source allowing exactly this inline stylesheet. */
const styleSource = (stylesheet: string) => `'sha256-${createHash('sha256').update(stylesheet, 'utf8').digest('base64')}'`;

/** The page's only permitted styles: its own inline stylesheet (and the bank's colour), by hash, so no injected `<style>` or `style=` applies. */
const STYLE_SOURCE = styleSource(PAGE_STYLESHEET);

/**
 * Nothing but the characters of a serialized http(s) origin. A `;` or `,`
 * would end the directive and start another, whitespace or `*` would add or
 * widen a source: either undoes the clickjacking protection of
 * `frame-ancestors`.
 */
const ORIGIN_CHARACTERS = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

/** Headers for every consent page response. */
export function consentPageHeaders(options: { frameAncestors: readonly string[]; formActionOrigins: readonly string[]; accentColor?: string | null; logo?: boolean }): Record<string, string> {
  const frameAncestors = options.frameAncestors.map((origin) => bareOrigin(origin, 'frameAncestors'));
  const formActionOrigins = options.formActionOrigins.map((origin) => bareOrigin(origin, 'formActionOrigins'));
  const policy = [
    "default-src 'none'",
    ['style-src', STYLE_SOURCE, ...(options.accentColor ? [styleSource(accentStylesheet(options.accentColor))] : [])].join(' '),
    // The bank's logo is in the page itself; nothing is fetched from anywhere.
    ...(options.logo ? ['img-src data:'] : []),
    // Chromium applies form-action to the redirect that follows the POST too, so the integrator's return URL origins belong here.
    ["form-action 'self'", ...formActionOrigins].join(' '),
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': policy,
    // X-Frame-Options cannot name a list of origins; with allowed origins, frame-ancestors alone decides.
    ...(frameAncestors.length === 0 ? { 'X-Frame-Options': 'DENY' } : {}),
    // The page's URL carries a single-use token: neither a cache nor another site's Referer may keep it.
    // Not `no-referrer`: under it Chromium sends `Origin: null` on the page's own form post, which the CSRF check needs.
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/** The origin as given, once it is known to be exactly what a browser serializes (lower case, no default port, no path). */
function bareOrigin(value: string, option: string): string {
  if (!ORIGIN_CHARACTERS.test(value) || !isSerializedOrigin(value)) {
    throw new Error(`${option}: ${JSON.stringify(value)} is not a bare origin (scheme://host[:port])`);
  }
  return value;
}

function isSerializedOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
