import { Body, Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NextStep, PASSWORD_LENGTH, changeInitialPassword, csrfTokenOf, openStep, signInWithCode, signInWithPassword, totpEnrolment } from '@ledger/console';
import { BodyLimit, Public, SignIn } from '@ledger/http';
import { DomainError } from '@ledger/platform';
import { ConsoleView, codePage, formRefusedPage, newPasswordPage, signInPage } from './console-html';
import { textOf } from './console-text';
import { ConsolePageFilter } from './console-page.filter';
import { ConsoleSessions } from './console-sessions';

/** Where each step of a sign-in is asked for, under /console. */
const STEP_PATHS: Record<NextStep, string> = { change_password: '/sign-in/new-password', enrol_totp: '/sign-in/code', totp: '/sign-in/code' };

/** A posted form's fields: strings, or nothing this controller reads. */
type Form = Record<string, unknown>;

const field = (form: Form | undefined, name: string): string => {
  const value = form?.[name];
  return typeof value === 'string' ? value : '';
};

/**
 * A person's sign-in to the console (decision 0093): email and password,
 * a new password at the first sign-in, then the authenticator app's code,
 * enrolling the app at the first sign-in. Every step is a form post from
 * the console's own page; between the password and the code, a step cookie
 * lasting minutes; after the code, the session cookie.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/sign-in')
export class ConsoleSignInHttpController {
  constructor(private readonly sessions: ConsoleSessions) {}

  @Get()
  @Public()
  show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.sessions.send(reply, 200, signInPage(this.sessions.view(request)));
  }

  @Post()
  @SignIn()
  // An email and a password: well under a kilobyte.
  @BodyLimit(2 * 1024)
  async signIn(@Body() form: Form | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const view = this.sessions.view(request);
    if (!this.sessions.genuine(request, undefined, null)) return this.sessions.send(reply, 403, formRefusedPage(view));
    try {
      const { stepCredential, next } = await signInWithPassword(this.sessions.deps, { email: field(form, 'email'), password: field(form, 'password') }, this.sessions.signInContext());
      this.sessions.beginStep(reply, stepCredential);
      return this.sessions.seeOther(reply, STEP_PATHS[next]);
    } catch (error) {
      return this.refused(reply, view, error);
    }
  }

  @Get('new-password')
  @Public()
  async showNewPassword(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const step = this.sessions.stepCredential(request);
    const next = await this.stepOf(step, reply);
    if (next === null) return;
    if (next !== 'change_password') return this.sessions.seeOther(reply, STEP_PATHS[next]);
    this.sessions.send(reply, 200, newPasswordPage(this.sessions.view(request), csrfTokenOf(step!), PASSWORD_LENGTH));
  }

  @Post('new-password')
  @SignIn()
  @BodyLimit(2 * 1024)
  async newPassword(@Body() form: Form | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const view = this.sessions.view(request);
    const step = this.sessions.stepCredential(request);
    if (step === undefined || !this.sessions.genuine(request, form?.csrf, csrfTokenOf(step))) return this.sessions.send(reply, 403, formRefusedPage(view));
    try {
      const { next } = await changeInitialPassword(this.sessions.deps, { stepCredential: step, newPassword: field(form, 'newPassword') }, this.sessions.signInContext());
      return this.sessions.seeOther(reply, STEP_PATHS[next]);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'validation') {
        const t = textOf(view.language);
        return this.sessions.send(reply, 400, newPasswordPage(view, csrfTokenOf(step), PASSWORD_LENGTH, t.passwordLength(PASSWORD_LENGTH.min, PASSWORD_LENGTH.max)));
      }
      return this.refused(reply, view, error);
    }
  }

  @Get('code')
  @Public()
  async showCode(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const step = this.sessions.stepCredential(request);
    const next = await this.stepOf(step, reply);
    if (next === null) return;
    if (next === 'change_password') return this.sessions.seeOther(reply, STEP_PATHS[next]);
    const enrolment = next === 'enrol_totp' ? await totpEnrolment(this.sessions.deps, step, this.sessions.now()) : null;
    this.sessions.send(reply, 200, codePage(this.sessions.view(request), csrfTokenOf(step!), enrolment));
  }

  @Post('code')
  @SignIn()
  @BodyLimit(2 * 1024)
  async code(@Body() form: Form | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const view = this.sessions.view(request);
    const step = this.sessions.stepCredential(request);
    if (step === undefined || !this.sessions.genuine(request, form?.csrf, csrfTokenOf(step))) return this.sessions.send(reply, 403, formRefusedPage(view));
    try {
      const { sessionCredential } = await signInWithCode(this.sessions.deps, { stepCredential: step, code: field(form, 'code') }, this.sessions.signInContext());
      this.sessions.beginSession(reply, sessionCredential);
      return this.sessions.seeOther(reply, '');
    } catch (error) {
      return this.refused(reply, view, error);
    }
  }

  /** The step the cookie names, or null once the browser is sent back to the sign-in. */
  private async stepOf(step: string | undefined, reply: FastifyReply): Promise<NextStep | null> {
    try {
      return await openStep(this.sessions.deps, step, this.sessions.now());
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.sessions.endStep(reply);
      this.sessions.seeOther(reply, '/sign-in');
      return null;
    }
  }

  /**
   * A refused step starts the sign-in again, with one message for every
   * refusal that must not say which part was wrong, and the lock's own.
   */
  private refused(reply: FastifyReply, view: ConsoleView, error: unknown): void {
    if (!(error instanceof DomainError)) throw error;
    const t = textOf(view.language);
    this.sessions.endStep(reply);
    if (error.code === 'console_user_locked') return this.sessions.send(reply, 429, signInPage(view, t.locked), error.retryAfterSeconds);
    if (error.kind === 'unauthenticated' || error.kind === 'conflict') return this.sessions.send(reply, 401, signInPage(view, t.refused));
    throw error;
  }
}
