import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { Public } from '@ledger/http';
import { loadTenant } from '@ledger/ledger';
import { DomainError, Scopes } from '@ledger/platform';
import { ConsentHistory, ReadableTerms, RegulatoryRepresentation } from '@ledger/redec';
import { ConsentHistoryQuery } from '../audit/consent-history.query';
import { GetConsentQuery } from '../redec/consents/get/get-consent.query';
import { LookupConsentsQuery } from '../redec/consents/lookup/lookup-consents.query';
import { SEARCH_FIELDS, SearchField, consentPage, refusalPage, searchResultsPage } from './console-html';
import { ConsoleSessions } from './console-sessions';

/**
 * Finding a consent and reading it, by the API's own queries under the
 * person's role: the lookups of GET /v1/redec/consents and the
 * representation of GET /v1/redec/consents/{id} (consent:read), and the
 * history of GET …/history for a role with consent:audit.
 */
@ApiExcludeController()
@Controller('console/consents')
export class ConsoleConsentsHttpController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly queryBus: QueryBus,
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
  async consent(@Param('redecConsentId') redecConsentId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const view = this.sessions.signedInView(request, session);
    const { tenantId } = session.principal;
    let consent: RegulatoryRepresentation;
    try {
      if (!isUUID(redecConsentId)) return this.sessions.send(reply, 404, refusalPage(view, 'not_found'));
      consent = await this.queryBus.execute(new GetConsentQuery(tenantId, redecConsentId.toLowerCase()));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return this.sessions.send(reply, 404, refusalPage(view, 'not_found'));
      throw error;
    }
    const history: ConsentHistory | null = session.principal.scopes.includes(Scopes.AUDIT)
      ? await this.queryBus.execute(new ConsentHistoryQuery(tenantId, consent.redecConsentId))
      : null;
    const terms = new ReadableTerms((await loadTenant(this.store, tenantId))?.settings.presentation?.terms);
    this.sessions.send(reply, 200, consentPage(view, consent, terms, history));
  }
}
