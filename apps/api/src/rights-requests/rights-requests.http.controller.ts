import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res, StreamableFile } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { LoadedRightsRequest, RectifiedRecord, RightsRequestEvent, RightsRequestSummary, listRightsRequests, rightsRequestStep } from '@ledger/redec';
import { ReadModel } from '@ledger/projections';
import { CurrentPrincipal, Idempotent, NoStore, RequireScopes, assertScope } from '@ledger/http';
import { CLOCK, Clock, Principal, Scopes, fieldRefused, sha256Hex } from '@ledger/platform';
import { customerReference } from '../redec/interactions/create/create-interaction.http.controller';
import { ResourceIdPipe } from '../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../openapi/problem-responses';
import { GetRightsRequestQuery, ReceiveRightsRequestCommand, RectifyRightsRequestCommand, TransitionRightsRequestCommand } from './rights-request.commands';
import { DEFAULT_PAGE_LIMIT } from '../page-query.dto';
import { requestCommandContext } from '../request-command-context';
import { SubjectReportDto, SubjectReportQueryDto } from './subject-report.dto';
import { SubjectReports } from './subject-reports';
import { ReceiveRightsRequestDto, RectificationDto, RectifiedRecordDto, RightsRequestDto, RightsRequestHistoryItemDto, RightsRequestListQueryDto, RightsRequestPageDto, RightsRequestSummaryDto, RightsTransitionDto } from './rights-request.dto';

@ApiTags('rights-requests')
@ApiBearerAuth()
@Controller('v1/rights-requests')
export class RightsRequestsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly subjectReports: SubjectReports,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'receiveRightsRequest',
    summary: "Record a data subject's request under Ley 21.719, or a REDEC dispute",
    description:
      'The customer by `customerId`, or resolved inline (`userReference` + `identifiers`) as for an interaction. Answers the request with its legal deadline `dueAt`: ' +
      'the end (America/Santiago) of the 30th calendar day after the local day of `receivedAt`, or of the 2nd banking day for `blocking` (decision 0067). ' +
      'A REDEC dispute (`redec_dispute`) carries `redec` (classification, reason code, operation reference); no other kind does. ' +
      'An opposition may name the consents it concerns (`redecConsentIds`, the customer then named by `customerId`); no other kind does. ' +
      'Idempotency-Key required: a retry answers the request recorded first. Scope `consent:write` (and `consent:identity-assert` to send verification).',
  })
  @ApiCreatedResponse({ type: RightsRequestDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['CUSTOMER_IDENTITY_CONFLICT', 'CUSTOMER_RESOLUTION_IN_PROGRESS', 'customer_data_erased', 'concurrent_change'], 503: ['banking_calendar_out_of_range'] })
  async receive(@Body() body: ReceiveRightsRequestDto, @CurrentPrincipal() principal: Principal): Promise<RightsRequestDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const { customerId, userReference, identifiers, redec, ...request } = body;
    const input = { ...request, customer: customerReference({ customerId, userReference, identifiers }), ...(redec ? { redec: { ...redec } } : {}) };
    return rightsRequestView(await this.commandBus.execute<ReceiveRightsRequestCommand, LoadedRightsRequest>(new ReceiveRightsRequestCommand(input)));
  }

  @ReadsReadModel()
  @Post(':rightsRequestId/transitions')
  @HttpCode(200)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'transitionRightsRequest',
    summary: 'Record a step of a rights request: analysis, extension, resolution, or the lifting of a block',
    description:
      '`in_analysis` once, from `received`. `extended` once, with a `reason`, before `dueAt`, never for `blocking`: `dueAt` becomes the end of the 60th calendar day after the day of receipt. ' +
      '`resolved` once, from `received` or `in_analysis`, with `outcome` and `response` (how and when the answer was sent, and the SHA-256 of what was sent); an outcome other than `approved` needs `reason` and gets a `complaintDeadline`. ' +
      '`block_lifted` once, for a `blocking` request resolved `approved` or `partially_approved`. `occurredAt` is never before the previous fact nor later than now. ' +
      'Idempotency-Key required: a retry answers the step recorded first. Scope `consent:write`.',
  })
  @ApiOkResponse({ type: RightsRequestDto })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: ['rights_request_invalid_transition', 'rights_request_already_extended', 'rights_request_not_extensible', 'concurrent_change'],
    422: ['rights_request_extension_after_due'],
    503: ['banking_calendar_out_of_range', 'read_model_behind'],
  })
  async transition(@Param('rightsRequestId', new ResourceIdPipe('rights request')) rightsRequestId: string, @Body() body: RightsTransitionDto): Promise<RightsRequestDto> {
    const { response, ...transition } = body;
    const step = { ...transition, ...(response ? { response: { channel: response.channel, sentAt: response.sentAt, contentSha256: response.contentSha256 } } : {}) };
    return rightsRequestView(await this.commandBus.execute<TransitionRightsRequestCommand, LoadedRightsRequest>(new TransitionRightsRequestCommand(rightsRequestId, step)));
  }

  @Post(':rightsRequestId/rectifications')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'rectifyRightsRequest',
    summary: 'Record a correction made for a rectification or a REDEC dispute',
    description:
      'A new fact linked to the request, shown in its history as `rectified` with the record corrected and what was corrected; nothing recorded before is rewritten (decision 0072). ' +
      'For kinds `rectification` and `redec_dispute`, while the request is open or once answered `approved` or `partially_approved` (else 409 `rights_request_invalid_transition`). ' +
      '`occurredAt` not before the receipt (`occurred_at_before_receipt`) nor later than now. A `redec_consent` record is a consent of the request\'s data subject (`not_a_consent_of_the_customer`). ' +
      'Idempotency-Key required: a retry answers the correction recorded first. Scope `consent:write`.',
  })
  @ApiCreatedResponse({ type: RightsRequestDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['rights_request_invalid_transition', 'customer_data_erased', 'concurrent_change'] })
  async rectify(@Param('rightsRequestId', new ResourceIdPipe('rights request')) rightsRequestId: string, @Body() body: RectificationDto): Promise<RightsRequestDto> {
    const { occurredAt, record, description } = body;
    const rectification = { occurredAt, record: rectifiedRecord(record), description };
    return rightsRequestView(await this.commandBus.execute<RectifyRightsRequestCommand, LoadedRightsRequest>(new RectifyRightsRequestCommand(rightsRequestId, rectification)));
  }

  @ReadsReadModel()
  @Get()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listRightsRequests',
    summary: "A tenant's rights requests: all of them, or the open ones due soon or overdue",
    description:
      'With `overdue=true`, the open requests past their `dueAt`; with `dueWithinDays=N`, the open requests due by now plus N days (the overdue ones among them); either way by deadline, the nearest first. ' +
      'Otherwise every request in the order received. `status` and `kind` filter a page, which may then hold fewer than `limit` items while `nextCursor` goes on. ' +
      'Paged with `limit` and `cursor` (400 `invalid_cursor` for a cursor this list did not hand out). Scope `consent:read`.',
  })
  @ApiOkResponse({ type: RightsRequestPageDto })
  async list(@Query() query: RightsRequestListQueryDto, @CurrentPrincipal() principal: Principal): Promise<RightsRequestPageDto> {
    const { status, kind, dueWithinDays, overdue, limit = DEFAULT_PAGE_LIMIT, cursor = null } = query;
    const page = await listRightsRequests(this.readModel, principal.tenantId, { status, kind, dueWithinDays, overdue: overdue === 'true', limit, cursor, now: this.clock.now() });
    return { items: page.items.map(summaryView), nextCursor: page.nextCursor };
  }

  @ReadsReadModel()
  @Get(':rightsRequestId/subject-report')
  @NoStore()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getRightsRequestSubjectReport',
    summary: "The subject's report answering an access or portability request: as JSON, or as a PDF in Spanish",
    description:
      'What the ledger holds about the data subject as of `asOf` (default now): their identifiers, every consent in its regulatory representation with every access decision taken under it and its outcome, ' +
      'the notices recorded, legal holds, and their rights requests (decision 0071). A function of the facts recorded by `asOf`: the same `asOf` gives the same bytes, whose SHA-256 is the ETag. ' +
      'JSON is canonical (keys sorted, no whitespace; schema `subject-report/1`); `format=pdf` answers the PDF as an attachment. Resolving the request records the SHA-256 of both (`subjectReportAsOf`). ' +
      'Another kind of request is 409 `rights_request_without_subject_report`; a read model behind the ledger is 503 `read_model_behind`. Scope `consent:read`.',
  })
  @ApiProduces('application/json', 'application/pdf')
  @ApiOkResponse({ type: SubjectReportDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['rights_request_without_subject_report'], 503: ['read_model_behind'] })
  async subjectReport(
    @Param('rightsRequestId', new ResourceIdPipe('rights request')) rightsRequestId: string,
    @Query() query: SubjectReportQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const asOf = query.asOf === undefined ? undefined : Number(query.asOf);
    const rendered = await this.subjectReports.render(rightsRequestId, asOf, requestCommandContext(this.clock));
    const pdf = query.format === 'pdf';
    const bytes = pdf ? rendered.pdf : rendered.json;
    void reply.header('Content-Type', pdf ? 'application/pdf' : 'application/json; charset=utf-8').header('ETag', `"${sha256Hex(bytes)}"`);
    if (pdf) void reply.header('Content-Disposition', `attachment; filename="informe-${rightsRequestId}-${rendered.report.asOf}.pdf"`).header('X-Content-Type-Options', 'nosniff');
    return new StreamableFile(bytes);
  }

  @Get(':rightsRequestId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getRightsRequest',
    summary: 'A rights request: its status, deadlines and every step of its life',
    description: 'Read from the request’s own facts. `overdue`: still open after `dueAt`. Another tenant’s request is 404. Scope `consent:read`.',
  })
  @ApiOkResponse({ type: RightsRequestDto })
  async get(@Param('rightsRequestId', new ResourceIdPipe('rights request')) rightsRequestId: string): Promise<RightsRequestDto> {
    return rightsRequestView(await this.queryBus.execute<GetRightsRequestQuery, LoadedRightsRequest>(new GetRightsRequestQuery(rightsRequestId)));
  }
}

/** The record a correction names, with the members of its kind only: a member of another kind is refused rather than dropped. */
function rectifiedRecord(record: RectifiedRecordDto): RectifiedRecord {
  const members: Record<RectifiedRecord['kind'], ReadonlyArray<keyof RectifiedRecordDto>> = { redec_consent: ['redecConsentId'], customer: [], bank_record: ['sourceSystem', 'sourceReference'] };
  for (const [kind, names] of Object.entries(members)) {
    for (const name of names) if (kind !== record.kind && record[name] !== undefined) throw fieldRefused(`record.${name}`, `only_with_${kind}`, `record.${name} is only sent with kind ${kind}.`);
  }
  switch (record.kind) {
    case 'redec_consent':
      return { kind: 'redec_consent', redecConsentId: record.redecConsentId! };
    case 'customer':
      return { kind: 'customer' };
    case 'bank_record':
      return { kind: 'bank_record', sourceSystem: record.sourceSystem!, sourceReference: record.sourceReference! };
  }
}

function rightsRequestView({ state, facts, description, rectifications, overdue }: LoadedRightsRequest): RightsRequestDto {
  const received = facts[0].type === 'RightsRequestReceived' ? facts[0].data : undefined;
  const { channel, sourceSystem, sourceReference } = received!;
  return {
    ...summaryView({ ...state, channel, sourceSystem, sourceReference, overdue }),
    description,
    ...(received?.redec ? { redec: received.redec } : {}),
    ...(received?.redecConsentIds ? { redecConsentIds: received.redecConsentIds } : {}),
    history: facts.map((fact) => historyItem(fact, rectifications)),
  };
}

function summaryView(request: RightsRequestSummary & { overdue: boolean }): RightsRequestSummaryDto {
  const { rightsRequestId, customerId, kind, status, receivedAt, dueAt, extended, outcome, complaintDeadline, overdue, channel, sourceSystem, sourceReference } = request;
  return { rightsRequestId, customerId, kind, status, receivedAt, dueAt, extended, outcome, complaintDeadline, overdue, channel, sourceSystem, sourceReference };
}

function historyItem(fact: RightsRequestEvent, rectifications: LoadedRightsRequest['rectifications']): RightsRequestHistoryItemDto {
  const step = { ...rightsRequestStep(fact), recordedAt: fact.data.recordedAt };
  switch (fact.type) {
    case 'RightsRequestReceived':
    case 'RightsRequestDeadlineNoticed':
      return { ...step, dueAt: fact.data.dueAt };
    case 'RightsRequestAnalysisStarted':
      return step;
    case 'RightsRequestExtended':
      return { ...step, reason: fact.data.reason, dueAt: fact.data.dueAt };
    case 'RightsRequestResolved': {
      const { outcome, reason, response, subjectReport, suppression } = fact.data;
      return { ...step, outcome, ...(reason !== undefined ? { reason } : {}), response, ...(subjectReport ? { subjectReport } : {}), ...(suppression ? { suppression } : {}) };
    }
    case 'RightsRequestBlockLifted':
      return { ...step, ...(fact.data.reason !== undefined ? { reason: fact.data.reason } : {}) };
    case 'RightsRequestRectified':
      return { ...step, rectificationId: fact.data.rectificationId, record: fact.data.record, description: rectifications.get(fact.data.rectificationId) ?? null };
  }
}
