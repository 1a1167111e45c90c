import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleSession } from '@ledger/console';
import { santiagoInstant } from '@ledger/embed';
import { EVENT_STORE, EventStore, canonicalJsonSha256 } from '@ledger/event-store';
import { BodyLimit, Public } from '@ledger/http';
import { AuditBundle, verifyAuditBundle } from '@ledger/ledger-log';
import { loadTenant } from '@ledger/ledger';
import { DomainError, Scopes, requireContext } from '@ledger/platform';
import { ConsentHistory, ReadableTerms, RegulatoryRepresentation } from '@ledger/redec';
import { ConsentHistoryQuery } from '../audit/consent-history.query';
import { AuditBundleQuery } from '../ledger-log/audit-bundle.query';
import { LedgerLogService } from '../ledger-log/ledger-log.service';
import { GetConsentQuery } from '../redec/consents/get/get-consent.query';
import { LookupConsentsQuery } from '../redec/consents/lookup/lookup-consents.query';
import { RecordNotificationEvidenceCommand } from '../redec/consents/notification-evidence/notification-evidence.command';
import { NotificationEvidenceRequestDto } from '../redec/consents/notification-evidence/notification-evidence.request.dto';
import { EvidenceForm, SEARCH_FIELDS, SearchField, consentPage, formRefusedPage, refusalPage, searchResultsPage, verificationPage } from './console-html';
import { EVIDENCE_FIELDS, EvidenceField } from './console-text';
import { ConsolePageFilter } from './console-page.filter';
import { ConsoleSessions } from './console-sessions';

/**
 * Finding a consent, reading it and recording its notice evidence, by the
 * API's own queries and commands under the person's role: the lookups of
 * GET /v1/redec/consents and the representation of GET
 * /v1/redec/consents/{id} (consent:read), the history of GET …/history for
 * a role with consent:audit, and notification evidence for one with
 * consent:runtime.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/consents')
export class ConsoleConsentsHttpController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly queryBus: QueryBus,
    private readonly commandBus: CommandBus,
    private readonly ledgerLog: LedgerLogService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get()
  @Public()
  async search(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const by: SearchField = SEARCH_FIELDS.find((field) => field === query.by) ?? 'internalConsentCode';
    const value = typeof query.value === 'string' ? query.value.trim().slice(0, 200) : '';
    const lookup = by === 'internalConsentCode' ? { internalConsentCode: value } : { creditOperationReference: value };
    const consents: RegulatoryRepresentation[] = value === '' ? [] : (await this.queryBus.execute(new LookupConsentsQuery(session.principal.tenantId, lookup))).consents;
    this.sessions.send(reply, 200, searchResultsPage(this.sessions.signedInView(request, session), { by, value }, consents));
  }

  @Get(':redecConsentId')
  @Public()
  async consent(@Param('redecConsentId') redecConsentId: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const evidence: EvidenceForm = { idempotencyKey: randomUUID(), values: { notificationReason: query.reason === 'revoke' ? 'revoke' : 'grant', status: 'sent' }, recorded: query.recorded === '1' };
    await this.render(request, reply, session, redecConsentId, 200, evidence);
  }

  /**
   * Notification evidence, as POST /v1/redec/consents/{id}/notification-evidence
   * records it (consent:runtime): the form becomes the API's request and
   * passes its validation, and runs its command under the person's role.
   * The form's idempotency key makes a form posted twice one record.
   */
  @Post(':redecConsentId/notification-evidence')
  @Public()
  // Nine short fields and two tokens.
  @BodyLimit(4 * 1024)
  async recordEvidence(@Param('redecConsentId') redecConsentId: string, @Body() form: Record<string, unknown> | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.RUNTIME);
    if (!session) return;
    if (!this.sessions.genuine(request, form?.csrf, session.csrfToken) || !isUUID(form?.idempotencyKey) || !isUUID(redecConsentId)) {
      return this.sessions.send(reply, 403, formRefusedPage(this.sessions.view(request)));
    }
    const values = Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, typeof form?.[field] === 'string' ? (form[field] as string).trim() : ''])) as Record<EvidenceField, string>;
    const retry: EvidenceForm = { idempotencyKey: form!.idempotencyKey as string, values };
    const { contentReference, sentAt, ...fields } = values;
    const body = { ...fields, sentAt: santiagoInstant(sentAt) ?? sentAt, ...(contentReference === '' ? {} : { contentReference }) };
    try {
      const evidence = await this.sessions.validated(NotificationEvidenceRequestDto, body);
      requireContext().idempotency = { key: retry.idempotencyKey, requestHash: await canonicalJsonSha256(body) };
      await this.commandBus.execute(new RecordNotificationEvidenceCommand(redecConsentId.toLowerCase(), evidence));
    } catch (error) {
      // Any other refusal is the page filter's to show (a consent not found, the model out of reach).
      if (!(error instanceof DomainError) || !['validation', 'conflict'].includes(error.kind)) throw error;
      const refused = error.kind === 'validation' && error.errors ? { ...retry, errors: error.errors } : { ...retry, refusal: error.detail };
      return this.render(request, reply, session, redecConsentId, error.kind === 'validation' ? 400 : 409, refused);
    }
    this.sessions.seeOther(reply, `/consents/${redecConsentId.toLowerCase()}?recorded=1#notice`);
  }

  /**
   * The consent's history verified by the service: its audit bundle (GET
   * …/audit-bundle, consent:audit) checked with the log's own verifier key,
   * as `ledger audit verify-bundle` checks it.
   */
  @Get(':redecConsentId/verification')
  @Public()
  async verification(@Param('redecConsentId') redecConsentId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.AUDIT);
    if (!session) return;
    const view = this.sessions.signedInView(request, session);
    const bundle = await this.bundleOf(session, redecConsentId);
    if (bundle === 'not_found') return this.sessions.send(reply, 404, refusalPage(view, 'not_found'));
    const consent: RegulatoryRepresentation = await this.queryBus.execute(new GetConsentQuery(session.principal.tenantId, redecConsentId.toLowerCase()));
    const checked = bundle === 'unavailable' ? null : { bundle, verification: verifyAuditBundle(bundle, { verifierKey: this.ledgerLog.identity.verifierKey }) };
    this.sessions.send(reply, 200, verificationPage(view, consent.internalConsentCode, checked));
  }

  /** The audit bundle itself, to keep and to check elsewhere. */
  @Get(':redecConsentId/audit-bundle.json')
  @Public()
  async bundle(@Param('redecConsentId') redecConsentId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.AUDIT);
    if (!session) return;
    const bundle = await this.bundleOf(session, redecConsentId);
    if (bundle === 'not_found' || bundle === 'unavailable') return this.sessions.send(reply, 404, refusalPage(this.sessions.signedInView(request, session), 'not_found'));
    void reply
      .status(200)
      .headers({
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="audit-bundle-${bundle.redecConsentId}.json"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(JSON.stringify(bundle, null, 2));
  }

  private async bundleOf(session: ConsoleSession, redecConsentId: string): Promise<AuditBundle | 'not_found' | 'unavailable'> {
    if (!isUUID(redecConsentId)) return 'not_found';
    try {
      return await this.queryBus.execute(new AuditBundleQuery(session.principal.tenantId, redecConsentId.toLowerCase()));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return 'not_found';
      if (error instanceof DomainError && error.code === 'ledger_log_unavailable') return 'unavailable';
      throw error;
    }
  }

  /** The consent's page; with the evidence form for a role that records evidence. */
  private async render(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession, redecConsentId: string, status: number, evidence: EvidenceForm): Promise<void> {
    const view = this.sessions.signedInView(request, session);
    const { tenantId, scopes } = session.principal;
    let consent: RegulatoryRepresentation;
    try {
      if (!isUUID(redecConsentId)) return this.sessions.send(reply, 404, refusalPage(view, 'not_found'));
      consent = await this.queryBus.execute(new GetConsentQuery(tenantId, redecConsentId.toLowerCase()));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return this.sessions.send(reply, 404, refusalPage(view, 'not_found'));
      throw error;
    }
    const history: ConsentHistory | null = scopes.includes(Scopes.AUDIT) ? await this.queryBus.execute(new ConsentHistoryQuery(tenantId, consent.redecConsentId)) : null;
    const terms = new ReadableTerms((await loadTenant(this.store, tenantId))?.settings.presentation?.terms);
    this.sessions.send(reply, status, consentPage(view, consent, terms, history, scopes.includes(Scopes.RUNTIME) ? evidence : null));
  }
}
