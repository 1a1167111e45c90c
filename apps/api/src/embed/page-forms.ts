import { Inject, Injectable, Provider } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { PageKind, PageReferences, pageCookieOptions, pagePath } from '@ledger/embed';
import { IdentifierProtection, LEDGER_CONFIG, LedgerConfig, masterKeys } from '@ledger/platform';

/** What binds a form to its page's session: one purpose per page, so one page's token never passes on another. */
const CSRF_PURPOSES: Record<PageKind, string> = { 'consent-page': 'embed-csrf', 'privacy-center': 'privacy-center-csrf' };

/**
 * What every page the service shows a person needs to take a form post
 * safely: its address under the public URL, and the proof that a post comes
 * from the page itself (cross-site request forgery).
 */
@Injectable()
export class PageForms {
  private readonly publicOrigin: string;
  /** A path prefix of LEDGER_PUBLIC_URL (a reverse proxy's), which a form must post back through. */
  private readonly publicPath: string;

  constructor(
    private readonly protection: IdentifierProtection,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
  ) {
    const publicUrl = new URL(config.publicUrl);
    this.publicOrigin = publicUrl.origin;
    this.publicPath = publicUrl.pathname.replace(/\/$/, '');
  }

  /** The page's path as the browser reaches it. */
  path(kind: PageKind, reference: string): string {
    return this.publicPathOf(pagePath(kind, reference));
  }

  /** A path of the service as the browser reaches it, under LEDGER_PUBLIC_URL's. */
  publicPathOf(path: string): string {
    return `${this.publicPath}${path}`;
  }

  /** Bound to the session by a key only the service holds, so a form cannot be forged for it from outside. */
  csrfToken(kind: PageKind, tenantId: string, sessionId: string): Promise<string> {
    return this.protection.hash(tenantId, CSRF_PURPOSES[kind], sessionId);
  }

  /** Whether a post carries its page's CSRF value and comes, as its browser says, from the page itself. */
  async genuine(kind: PageKind, tenantId: string, sessionId: string, csrf: unknown, origin: string | undefined, fetchSite: string | undefined): Promise<boolean> {
    if (typeof csrf !== 'string' || !this.postedFromOwnPage(origin, fetchSite)) return false;
    const expected = Buffer.from(await this.csrfToken(kind, tenantId, sessionId));
    const given = Buffer.from(csrf);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /**
   * Browsers say where a form post comes from, in `Origin` (every current
   * browser on a POST) and `Sec-Fetch-Site`; a request with neither is not a
   * browser's, and is refused rather than trusted.
   */
  postedFromOwnPage(origin: string | undefined, fetchSite: string | undefined): boolean {
    if (origin === undefined && fetchSite === undefined) return false;
    if (fetchSite !== undefined && fetchSite !== 'same-origin') return false;
    return origin === undefined || origin === this.publicOrigin;
  }
}

/** 303 to `location`, which neither a cache nor another site's Referer keeps: every redirect of a person's page. */
export function seeOther(reply: FastifyReply, location: string): void {
  reply.status(303).headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).send();
}

/**
 * Opened from the link the bank handed out, a page trades the link's token
 * for a cookie of the page's path and sends the browser to the address
 * without it, so the token leaves the address bar, the history and every
 * later request.
 */
export function exchangeToken(reply: FastifyReply, cookie: string, token: string, path: string): void {
  reply.setCookie(cookie, token, pageCookieOptions(path));
  seeOther(reply, path);
}

/** What a module serving a person's page provides: its sealed addresses and its forms' checks. */
export const pageProviders: Provider[] = [
  { provide: PageReferences, inject: [LEDGER_CONFIG], useFactory: (ledger: LedgerConfig) => new PageReferences(masterKeys(ledger.masterKey, ledger.previousMasterKeys)) },
  PageForms,
];
