import { Inject, Injectable } from '@nestjs/common';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ConsoleDependencies, ConsoleSession, ConsoleUser, SESSION_LIFETIME_MS, STEP_LIFETIME_MS, authenticateConsoleSession } from '@ledger/console';
import { RequestValidationPipe } from '@ledger/http';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { AggregateCache, CommandContext } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection, LEDGER_CONFIG, LedgerConfig, Scope, requireContext } from '@ledger/platform';
import { PageForms } from '../embed/page-forms';
import { CONSOLE_PAGE_HEADERS, ConsoleView, SignedInView, refusalPage } from './console-html';
import { ConsoleLanguage, languageOf } from './console-text';

/**
 * `__Host-`: a browser keeps these only from a secure origin (https, or
 * localhost), for the whole site and no other: nothing on a plain-http path
 * nor a sibling domain can plant one. HttpOnly, so no script reads them;
 * SameSite=Strict, so no other site's page sends them.
 */
export const CONSOLE_SESSION_COOKIE = '__Host-console-session';
/** The step between the password and the code. */
export const CONSOLE_STEP_COOKIE = '__Host-console-step';

const COOKIE: CookieSerializeOptions = { path: '/', httpOnly: true, secure: true, sameSite: 'strict' };

function cookieOptions(lifetimeMs: number): CookieSerializeOptions {
  return { ...COOKIE, maxAge: lifetimeMs / 1000 };
}

/** Folded users kept for session checks: one per person signed in recently, each a few hundred bytes. */
const CACHED_USERS = 1_000;

/**
 * What the console's routes share: the sign-in's dependencies, the cookies,
 * where the console lives under the public URL, and the checks that a form
 * comes from the console's own page and from its session.
 */
@Injectable()
export class ConsoleSessions {
  readonly deps: ConsoleDependencies;
  /** The API's own validation of request bodies: what a form becomes passes the same rules as the API's request. */
  private readonly validation = new RequestValidationPipe();

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    protection: IdentifierProtection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly forms: PageForms,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
  ) {
    // The host tells authenticator apps which service a code is for, when a person has several.
    this.deps = { store, protection, users: new AggregateCache<ConsoleUser>(CACHED_USERS), issuer: `Consent Ledger (${new URL(config.publicUrl).host})` };
  }

  now(): number {
    return this.clock.now();
  }

  view(request: FastifyRequest): ConsoleView {
    return { language: this.language(request), base: this.forms.publicPathOf('/console') };
  }

  language(request: FastifyRequest): ConsoleLanguage {
    return languageOf(request.headers['accept-language']);
  }

  /** The context of a command taken by a person who has not signed in yet: the sign-in's steps. */
  signInContext(): CommandContext {
    return { actor: 'console:sign-in', correlationId: requireContext().correlationId, now: this.now() };
  }

  /** The context of a command of a signed-in person: the person is its actor, their tenant its tenant. */
  sessionContext(session: ConsoleSession): CommandContext & { tenantId: string } {
    return { tenantId: session.principal.tenantId, actor: session.principal.keyId, correlationId: requireContext().correlationId, now: this.now() };
  }

  /**
   * The session of the request's cookie, if open. The principal goes into
   * the request context, as an API key's does, so that what the person does
   * is recorded as theirs and logged with their id.
   */
  async session(request: FastifyRequest): Promise<ConsoleSession | null> {
    const session = await authenticateConsoleSession(this.deps, request.cookies[CONSOLE_SESSION_COOKIE], this.now());
    if (session) requireContext().principal = session.principal;
    return session;
  }

  /**
   * The session of a page that needs `scope`: null once the person without
   * one is sent to the sign-in, or shown that their role does not allow it.
   */
  async signedIn(request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<ConsoleSession | null> {
    const session = await this.session(request);
    if (!session) {
      this.seeOther(reply, '/sign-in');
      return null;
    }
    if (!session.principal.scopes.includes(scope)) {
      this.send(reply, 403, refusalPage(this.signedInView(request, session), 'forbidden'));
      return null;
    }
    return session;
  }

  signedInView(request: FastifyRequest, session: ConsoleSession): SignedInView {
    return { ...this.view(request), email: session.user.email, csrfToken: session.csrfToken };
  }

  /** `body` as the API's route would take it (its DTO, validated); a validation DomainError otherwise. */
  async validated<T>(metatype: new () => T, body: Record<string, unknown>): Promise<T> {
    return (await this.validation.transform(body, { type: 'body', metatype })) as T;
  }

  stepCredential(request: FastifyRequest): string | undefined {
    return request.cookies[CONSOLE_STEP_COOKIE];
  }

  /** A post from the console's own page (Origin, Sec-Fetch-Site), carrying the token of its step or session. */
  genuine(request: FastifyRequest, csrf: unknown, expected: string | null): boolean {
    const { origin, 'sec-fetch-site': fetchSite } = request.headers;
    if (!this.forms.postedFromOwnPage(origin, typeof fetchSite === 'string' ? fetchSite : undefined)) return false;
    if (expected === null) return true;
    if (typeof csrf !== 'string') return false;
    const given = Buffer.from(csrf);
    const wanted = Buffer.from(expected);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }

  beginStep(reply: FastifyReply, stepCredential: string): void {
    reply.setCookie(CONSOLE_STEP_COOKIE, stepCredential, cookieOptions(STEP_LIFETIME_MS));
  }

  beginSession(reply: FastifyReply, sessionCredential: string): void {
    reply.clearCookie(CONSOLE_STEP_COOKIE, COOKIE);
    reply.setCookie(CONSOLE_SESSION_COOKIE, sessionCredential, cookieOptions(SESSION_LIFETIME_MS));
  }

  endSession(reply: FastifyReply): void {
    reply.clearCookie(CONSOLE_SESSION_COOKIE, COOKIE);
  }

  endStep(reply: FastifyReply): void {
    reply.clearCookie(CONSOLE_STEP_COOKIE, COOKIE);
  }

  /** A console page; `retryAfterSeconds` for a refusal that passes with time. */
  send(reply: FastifyReply, status: number, body: string, retryAfterSeconds?: number): void {
    void reply.status(status).headers(CONSOLE_PAGE_HEADERS);
    if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
    void reply.send(body);
  }

  /** 303 to a console path, kept by no cache. */
  seeOther(reply: FastifyReply, path: string): void {
    void reply.status(303).headers({ location: `${this.forms.publicPathOf('/console')}${path}`, 'cache-control': 'no-store' }).send();
  }
}
