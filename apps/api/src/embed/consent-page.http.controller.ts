import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CONSENT_PAGE_COOKIE,
  ConsentPageSession,
  EmbedDecision,
  EmbedDecisionResult,
  OutcomePage,
  PageBank,
  PageReferences,
  consentPageHeaders,
  itemDecisionField,
  renderConsentPage,
  renderOutcomePage,
} from '@ledger/embed';
import { BodyLimit, Public } from '@ledger/http';
import type { TermKind } from '@ledger/ledger';
import { DomainError } from '@ledger/platform';
import { DecideOnEmbedSessionCommand, ReadConsentPageQuery } from './embed-session.commands';
import { PageForms, exchangeToken, seeOther } from './page-forms';

const OUTCOME_STATUS: Record<OutcomePage, number> = { accepted: 200, declined: 200, partially_accepted: 200, expired: 410, already_used: 409, not_found: 404, refused: 403, link_required: 403 };

/** Domain refusals as the page shows them to the data subject: never a problem+json, never a detail of the session. */
const OUTCOME_OF_CODE: Record<string, OutcomePage> = { NOT_FOUND: 'not_found', embed_session_expired: 'expired', embed_session_already_used: 'already_used' };

/** The posted form: `csrf`, and `decision` (one item) or `decision-<index>` (several). */
type DecisionForm = Record<string, unknown>;

const DECISIONS: Record<string, EmbedDecision> = { accept: 'accepted', decline: 'declined' };

/** One decision per item, as the page's form carries them; null when the form is not one the page served. */
function decisionsOf(form: DecisionForm, items: number): EmbedDecision[] | null {
  const fields = items === 1 ? ['decision'] : Array.from({ length: items }, (_, index) => itemDecisionField(index));
  const decisions = fields.map((field) => {
    const value = form[field];
    return typeof value === 'string' && Object.hasOwn(DECISIONS, value) ? DECISIONS[value] : undefined;
  });
  return decisions.every((decision) => decision !== undefined) ? decisions : null;
}

/**
 * The consent page the data subject sees (embedded capture): served by the
 * service, public (the data subject has no API key; the session's token is
 * the credential), framed only by the configuration's allowed origins, and
 * answered with a plain form POST that is refused from any other site.
 */
@ApiExcludeController()
@Controller('embed')
export class ConsentPageHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly commandBus: CommandBus,
    private readonly pageReferences: PageReferences,
    private readonly forms: PageForms,
  ) {}

  /**
   * The page. Opened from the URL the integrator handed out, it exchanges
   * the URL's token for the session's cookie and sends the browser to the
   * same address without it (303), so the token leaves the address bar, the
   * history and every later request; the page itself is served on the
   * cookie alone.
   */
  @Get('pages/:pageReference')
  @Public()
  async show(
    @Param('pageReference') pageReference: string,
    @Query('token') urlToken: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const address = this.pageReferences.open('consent-page', pageReference);
    if (!address || (urlToken !== undefined && typeof urlToken !== 'string')) return outcome(reply, 'not_found');
    const { tenantId, sessionId } = address;
    const token = urlToken ?? request.cookies[CONSENT_PAGE_COOKIE];
    if (token === undefined) return outcome(reply, 'link_required');
    let page: ConsentPageSession;
    try {
      page = await this.queryBus.execute(new ReadConsentPageQuery(tenantId, sessionId, token));
    } catch (error) {
      return refusal(reply, error);
    }
    const { session, status, configurations, presentation } = page;
    // The presentation is the page's bank as it is: its name, logo and colour (the terms are read below).
    const bank: PageBank = presentation;
    if (status !== 'open') return outcome(reply, status === 'expired' ? 'expired' : 'already_used', session.allowedOrigins, bank);
    const path = this.forms.path('consent-page', pageReference);
    if (urlToken !== undefined) {
      return exchangeToken(reply, CONSENT_PAGE_COOKIE, urlToken, path);
    }
    // Every code was given a meaning before the session opened; one the bank has removed since shows as a code.
    const readable = (kind: TermKind, code: string) => ({ meaning: presentation.terms.meaningOf(kind, code), code });
    const html = renderConsentPage({
      bank,
      items: configurations.map((configuration) => ({
        title: configuration.title,
        text: configuration.text,
        redec: configuration.redec && {
          finality: readable('finality', configuration.redec.finalityCode),
          objectives: configuration.redec.objectiveCodes.map((code) => readable('objective', code)),
          dataCategories: configuration.redec.scopes.map((scope) => readable('dataCategory', scope.dataCategoryCode)),
          targets: configuration.redec.targets,
        },
      })),
      formAction: `${path}/decision`,
      hiddenFields: { csrf: await this.forms.csrfToken('consent-page', tenantId, sessionId) },
      expiresAt: session.expiresAt,
    });
    const returnOrigins = session.returnUrl ? [new URL(session.returnUrl).origin] : [];
    reply.status(200).headers(consentPageHeaders({ frameAncestors: session.allowedOrigins, formActionOrigins: returnOrigins, accentColor: presentation.accentColor, logo: presentation.logo !== null })).send(html);
  }

  @Post('pages/:pageReference/decision')
  @Public()
  // The page's form: a token, a csrf value and one decision per item, well under a kilobyte.
  @BodyLimit(4 * 1024)
  async decide(
    @Param('pageReference') pageReference: string,
    @Body() form: DecisionForm,
    @Headers('origin') origin: string | undefined,
    @Headers('sec-fetch-site') fetchSite: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const address = this.pageReferences.open('consent-page', pageReference);
    if (!address) return outcome(reply, 'not_found');
    const { tenantId, sessionId } = address;
    // Only the browser that opened the page holds the session's cookie; the token is never in the form.
    const token = request.cookies[CONSENT_PAGE_COOKIE];
    if (token === undefined) return outcome(reply, 'refused');
    const { csrf } = form ?? {};
    // The token is checked first, so that every later answer may be shown inside the integrator's frame.
    let page: ConsentPageSession;
    try {
      page = await this.queryBus.execute(new ReadConsentPageQuery(tenantId, sessionId, token));
    } catch (error) {
      return refusal(reply, error);
    }
    const frameAncestors = page.session.allowedOrigins;
    const bank: PageBank = page.presentation;
    // Cross-site request forgery: browsers say where a form post comes from; only the page itself may post.
    const genuine = await this.forms.genuine('consent-page', tenantId, sessionId, csrf, origin, fetchSite);
    const decisions = decisionsOf(form ?? {}, page.session.items.length);
    if (!genuine || !decisions) return outcome(reply, 'refused', frameAncestors, bank);
    let result: EmbedDecisionResult;
    try {
      result = await this.commandBus.execute(new DecideOnEmbedSessionCommand(tenantId, sessionId, token, decisions));
    } catch (error) {
      return refusal(reply, error, frameAncestors, bank);
    }
    if (result.redirectUrl) {
      return seeOther(reply, result.redirectUrl);
    }
    return outcome(reply, result.session.decision!.outcome, frameAncestors, bank);
  }
}

/** `bank`: only once the page's token was shown, so a wrong or guessed link learns no bank's name. */
function outcome(reply: FastifyReply, page: OutcomePage, frameAncestors: readonly string[] = [], bank: PageBank | null = null): void {
  const headers = consentPageHeaders({ frameAncestors, formActionOrigins: [], accentColor: bank?.accentColor, logo: bank?.logo != null });
  reply.status(OUTCOME_STATUS[page]).headers(headers).send(renderOutcomePage(page, bank));
}

function refusal(reply: FastifyReply, error: unknown, frameAncestors: readonly string[] = [], bank: PageBank | null = null): void {
  const page = error instanceof DomainError ? OUTCOME_OF_CODE[error.code] : undefined;
  if (!page) throw error;
  outcome(reply, page, page === 'not_found' ? [] : frameAncestors, page === 'not_found' ? null : bank);
}
