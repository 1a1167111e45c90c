import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConsentOnPage,
  PRIVACY_CENTER_COOKIE,
  PRIVACY_CENTER_NOTICES,
  PRIVACY_CENTER_REQUEST_KINDS,
  PageAddress,
  PageBank,
  PageReferences,
  PageRevocation,
  PrivacyCenterNotice,
  PrivacyCenterOutcome,
  REQUEST_DESCRIPTION_MAX,
  REQUEST_FIELDS,
  REVOKE_FIELDS,
  consentPageHeaders,
  pageCookieOptions,
  renderPrivacyCenter,
  renderPrivacyCenterOutcome,
} from '@ledger/embed';
import { BodyLimit, Public } from '@ledger/http';
import { DomainError } from '@ledger/platform';
import { SubjectRecords } from '@ledger/redec';
import { PageForms, exchangeToken, seeOther } from '../embed/page-forms';
import { EndPrivacyCenterSessionCommand, FileOnPrivacyCenterCommand, PrivacyCenterAccess, PrivacyCenterRecordsQuery, ReadPrivacyCenterSessionQuery, RevokeOnPrivacyCenterCommand } from './privacy-center.commands';

const OUTCOME_STATUS: Record<PrivacyCenterOutcome, number> = { expired: 410, ended: 410, not_found: 404, link_required: 403 };

/** Domain refusals as the page answers them: never a problem+json, never a detail of the session. */
const OUTCOME_OF_CODE: Record<string, PrivacyCenterOutcome> = { NOT_FOUND: 'not_found', privacy_center_session_expired: 'expired', privacy_center_session_ended: 'ended' };

/** Refusals of a revocation the person is told about on the page, which stays usable. */
const NOTICE_OF_CODE: Record<string, PrivacyCenterNotice> = {
  redec_consent_already_revoked: 'already_revoked',
  consent_already_revoked: 'already_revoked',
  identity_assurance_not_accepted: 'revocation_not_accepted',
  channel_not_supported_by_regulatory_profile: 'revocation_not_accepted',
  // A consent that is not the person's, or none: the form was not one the page served.
  NOT_FOUND: 'refused',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Form = Record<string, unknown>;

/** A page request whose session the browser's token opened. */
interface OpenedPage extends PrivacyCenterAccess, PageAddress {
  path: string;
  frameAncestors: string[];
}

/**
 * The privacy center the data subject sees (decision 0076): served by the
 * service, public (the person has no API key; the session's token is the
 * credential), framed only by the bank's return origin, and acted on with
 * plain form posts that are refused from any other site. Every post answers
 * with a redirect back to the page (303), which says what happened.
 */
@ApiExcludeController()
@Controller('privacy-center')
export class PrivacyCenterPageHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly commandBus: CommandBus,
    private readonly pageReferences: PageReferences,
    private readonly forms: PageForms,
  ) {}

  /** The page. Opened from the bank's URL, it exchanges the URL's token for the cookie and sends the browser to the address without it. */
  @Get('pages/:pageReference')
  @Public()
  async show(
    @Param('pageReference') pageReference: string,
    @Query('token') urlToken: unknown,
    @Query('done') done: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (urlToken !== undefined && typeof urlToken !== 'string') return outcome(reply, 'not_found');
    const page = await this.openPage(pageReference, urlToken ?? request.cookies[PRIVACY_CENTER_COOKIE], reply);
    if (!page) return;
    if (urlToken !== undefined) return exchangeToken(reply, PRIVACY_CENTER_COOKIE, urlToken, page.path);
    const records = await this.queryBus.execute<PrivacyCenterRecordsQuery, SubjectRecords>(new PrivacyCenterRecordsQuery(page.session, page.tenantId));
    const { presentation } = page;
    const html = renderPrivacyCenter({
      bank: presentation,
      records,
      terms: presentation.terms,
      revokeAction: `${page.path}/revocations`,
      requestAction: `${page.path}/rights-requests`,
      endAction: `${page.path}/end`,
      csrf: await this.forms.csrfToken('privacy-center', page.tenantId, page.sessionId),
      notice: PRIVACY_CENTER_NOTICES.find((notice) => notice === done) ?? null,
      returnUrl: page.session.returnUrl,
      expiresAt: page.session.expiresAt,
      requestKinds: PRIVACY_CENTER_REQUEST_KINDS,
    });
    reply.status(200).headers(pageHeaders(page.frameAncestors, presentation)).send(html);
  }

  @Post('pages/:pageReference/revocations')
  @Public()
  // A csrf value, a consent and a confirmation: well under a kilobyte.
  @BodyLimit(4 * 1024)
  async revoke(
    @Param('pageReference') pageReference: string,
    @Body() form: Form | undefined,
    @Headers('origin') origin: string | undefined,
    @Headers('sec-fetch-site') fetchSite: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const posted = await this.genuinePost(pageReference, form, origin, fetchSite, request, reply);
    if (!posted) return;
    const { page, fields } = posted;
    const consent = consentOf(fields);
    if (!consent) return back(reply, page, 'refused');
    if (fields[REVOKE_FIELDS.confirm] !== 'yes') return back(reply, page, 'confirmation_required');
    let revoked: PageRevocation;
    try {
      revoked = await this.commandBus.execute(new RevokeOnPrivacyCenterCommand(page.session, page.tenantId, consent));
    } catch (error) {
      const notice = error instanceof DomainError ? NOTICE_OF_CODE[error.code] : undefined;
      if (notice) return back(reply, page, notice);
      return refusal(reply, error, page);
    }
    return back(reply, page, revoked.outcome);
  }

  @Post('pages/:pageReference/rights-requests')
  @Public()
  // A csrf value, a kind and a description of at most 2,000 characters (each up to 4 bytes, form-encoded up to 3 times that).
  @BodyLimit(32 * 1024)
  async file(
    @Param('pageReference') pageReference: string,
    @Body() form: Form | undefined,
    @Headers('origin') origin: string | undefined,
    @Headers('sec-fetch-site') fetchSite: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const posted = await this.genuinePost(pageReference, form, origin, fetchSite, request, reply);
    if (!posted) return;
    const { page, fields } = posted;
    const kind = PRIVACY_CENTER_REQUEST_KINDS.find((k) => k === fields[REQUEST_FIELDS.kind]);
    const description = descriptionOf(fields[REQUEST_FIELDS.description]);
    if (!kind || description === undefined) return back(reply, page, 'refused');
    try {
      await this.commandBus.execute(new FileOnPrivacyCenterCommand(page.session, page.tenantId, { kind, description }));
    } catch (error) {
      return refusal(reply, error, page);
    }
    return back(reply, page, 'request_filed');
  }

  /** The person ends the session: the cookie is cleared, and the link and cookie open nothing afterwards. */
  @Post('pages/:pageReference/end')
  @Public()
  @BodyLimit(4 * 1024)
  async end(
    @Param('pageReference') pageReference: string,
    @Body() form: Form | undefined,
    @Headers('origin') origin: string | undefined,
    @Headers('sec-fetch-site') fetchSite: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const posted = await this.genuinePost(pageReference, form, origin, fetchSite, request, reply);
    if (!posted) return;
    const { page } = posted;
    try {
      await this.commandBus.execute(new EndPrivacyCenterSessionCommand(page.session, page.tenantId));
    } catch (error) {
      return refusal(reply, error, page);
    }
    reply.clearCookie(PRIVACY_CENTER_COOKIE, pageCookieOptions(page.path));
    reply.status(200).headers(pageHeaders(page.frameAncestors, page.presentation)).send(renderPrivacyCenterOutcome('ended', page.presentation));
  }

  /**
   * A post the page itself made: it acts only for the browser that opened
   * the page (the token is its cookie, never the form) and carries the
   * page's CSRF value from the page's own origin. Otherwise the answer is
   * sent here, and null.
   */
  private async genuinePost(
    pageReference: string,
    form: Form | undefined,
    origin: string | undefined,
    fetchSite: string | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ page: OpenedPage; fields: Form } | null> {
    const page = await this.openPage(pageReference, request.cookies[PRIVACY_CENTER_COOKIE], reply);
    if (!page) return null;
    const fields = form ?? {};
    if (!(await this.forms.genuine('privacy-center', page.tenantId, page.sessionId, fields.csrf, origin, fetchSite))) {
      back(reply, page, 'refused');
      return null;
    }
    return { page, fields };
  }

  /** The session a page's address and token open; otherwise the page that says why, and null. */
  private async openPage(pageReference: string, token: string | undefined, reply: FastifyReply): Promise<OpenedPage | null> {
    const address = this.pageReferences.open('privacy-center', pageReference);
    if (!address) {
      outcome(reply, 'not_found');
      return null;
    }
    if (token === undefined) {
      outcome(reply, 'link_required');
      return null;
    }
    let access: PrivacyCenterAccess;
    try {
      access = await this.queryBus.execute(new ReadPrivacyCenterSessionQuery(address.tenantId, address.sessionId, token));
    } catch (error) {
      refusal(reply, error);
      return null;
    }
    const { returnUrl } = access.session;
    return { ...address, ...access, path: this.forms.path('privacy-center', pageReference), frameAncestors: returnUrl ? [new URL(returnUrl).origin] : [] };
  }
}

/** The consent a revocation form names; null for a form the page did not serve. */
function consentOf(form: Form): ConsentOnPage | null {
  const kind = form[REVOKE_FIELDS.consentKind];
  const consentId = form[REVOKE_FIELDS.consentId];
  if ((kind !== 'redec' && kind !== 'general') || typeof consentId !== 'string' || !UUID.test(consentId)) return null;
  return { kind, consentId };
}

/** The description as the person wrote it, null when left empty; undefined for one the page's form would not send. */
function descriptionOf(value: unknown): string | null | undefined {
  if (value === undefined) return null;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return null;
  return [...text].length <= REQUEST_DESCRIPTION_MAX ? text : undefined;
}

function pageHeaders(frameAncestors: readonly string[], bank: PageBank | null): Record<string, string> {
  return consentPageHeaders({ frameAncestors, formActionOrigins: [], accentColor: bank?.accentColor, logo: bank?.logo != null });
}

/** Back to the page, which says what happened: the post's answer is never a page of its own, so a reload does not post again. */
function back(reply: FastifyReply, page: OpenedPage, notice: PrivacyCenterNotice): void {
  seeOther(reply, `${page.path}?done=${notice}`);
}

/** `page`: named once the page's token was shown, so a wrong or guessed link learns no bank's name. */
function outcome(reply: FastifyReply, kind: PrivacyCenterOutcome, page: OpenedPage | null = null): void {
  const bank = page?.presentation ?? null;
  reply.status(OUTCOME_STATUS[kind]).headers(pageHeaders(page?.frameAncestors ?? [], bank)).send(renderPrivacyCenterOutcome(kind, bank));
}

function refusal(reply: FastifyReply, error: unknown, page: OpenedPage | null = null): void {
  const kind = error instanceof DomainError ? OUTCOME_OF_CODE[error.code] : undefined;
  if (!kind) throw error;
  outcome(reply, kind, kind === 'not_found' ? null : page);
}
