import { Body, Controller, Get, HttpCode, Inject, Param, Post, Res, StreamableFile } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { ReportKeyring, reportContentErased } from '@ledger/ledger';
import { CurrentPrincipal, Idempotent, NoStore, RequireAnyScope, RequireScopes } from '@ledger/http';
import { Principal, Scopes, conflict, notFound } from '@ledger/platform';
import { Report, ReportLayouts, contentBlobOf, localDateOf, openReportContent, readReport, reportContentSha256, requestReport } from '@ledger/redec';
import { ProblemResponses } from '../../openapi/problem-responses';
import { RequestCommands } from '../../request-commands';
import { ResourceIdPipe } from '../../resource-id.pipe';
import { REPORT_LAYOUTS } from './report-layouts.provider';
import { ReportDto, ReportRequestedDto, RequestReportDto } from './report.dto';

/** A report renders in seconds; this is the first wait suggested while it is pending. */
export const REPORT_RETRY_AFTER_SECONDS = 2;
const REPORT_ID = new ResourceIdPipe('report');

/** RDC30, RDC31 and RDC40 files rendered from the ledger's own facts (docs/reference/reports.md, docs/regulatory-reports.md). */
@ApiTags('reports')
@ApiBearerAuth()
@Controller('v1/redec/reports')
export class ReportsHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(REPORT_LAYOUTS) private readonly layouts: ReportLayouts,
    private readonly reportKeys: ReportKeyring,
    private readonly commands: RequestCommands,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireScopes(Scopes.REPORT)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'requestReport',
    summary: 'Ask for an RDC30, RDC31 or RDC40 file of a period',
    description:
      'Records the request as a fact of the ledger (who asked, the period, the layout version, the store position its facts are read up to) and renders the file in the background: ' +
      'poll GET /v1/redec/reports/{reportId} until `ready`. A consent is in the file of the period its grant falls in (America/Santiago), or of the period it was recorded in when recorded after that period ended; ' +
      'a correction (a revocation, an extension) of a consent reported earlier shows in the next file, never by rewriting one; likewise each step of a REDEC dispute for RDC40 (decision 0074). The same period always renders the same bytes. ' +
      'The period must have ended (400 `period_not_ended`) and span at most 93 days; the tenant needs its institution code (409 `institution_code_not_configured`, PUT /v1/tenant-settings). ' +
      'Idempotency-Key required. Scope `consent:report`.',
  })
  @ApiAcceptedResponse({ type: ReportRequestedDto })
  @ProblemResponses({ 409: ['institution_code_not_configured', 'concurrent_change'] })
  async request(@Body() body: RequestReportDto): Promise<ReportRequestedDto> {
    const context = this.commands.context();
    const { report } = await requestReport({ store: this.store, layouts: this.layouts }, { kind: body.kind, periodStart: body.periodStart, periodEnd: body.periodEnd }, context);
    return { reportId: report.request.reportId, status: report.status };
  }

  @Get(':reportId')
  @RequireAnyScope(Scopes.REPORT, Scopes.READ)
  @ApiOperation({
    operationId: 'getReport',
    summary: 'A report: status, period, record counts, cover-sheet metadata, content hash, layout version',
    description:
      'Holds no identifier. A report whose stored content was erased (it named a data subject erased after the retention floor, decision 0040) keeps its status, period, counts and cover sheet, with `contentErasedAt` set ' +
      'and `contentSha256` null: the hash would let a holder of the master key find the erased RUT by re-rendering the file with each candidate, so it is destroyed with the content (decision 0045). ' +
      'Scope `consent:report` or `consent:read`.',
  })
  @ApiOkResponse({ type: ReportDto })
  @ProblemResponses({ 409: ['concurrent_change'] })
  async get(@Param('reportId', REPORT_ID) reportId: string, @CurrentPrincipal() principal: Principal): Promise<ReportDto> {
    const report = await this.report(principal.tenantId, reportId);
    return reportView(report, await reportContentSha256(this.reportKeys, principal.tenantId, report));
  }

  @Get(':reportId/content')
  @NoStore()
  @RequireScopes(Scopes.REPORT)
  @ApiOperation({
    operationId: 'downloadReportContent',
    summary: "The file's exact bytes",
    description:
      'Fixed-width ASCII, `text/plain; charset=us-ascii`, lines ended as the layout says (CRLF in the shipped layouts); its SHA-256 is `contentSha256` (also the ETag). ' +
      'A pending report is 409 `report_not_ready` with Retry-After; a failed one 409 `report_failed`. The file names data subjects, executives and mandataries by RUT: ' +
      'only `consent:report` reads it (not `consent:read`). Kept encrypted at rest under a key of the report\'s own, until a data subject it names is erased after the retention floor: ' +
      'then its bytes and that key are destroyed, for good, and this answers 410 `report_content_erased` (decisions 0040, 0045; `GET /v1/redec/reports/{reportId}` still gives what the file was, ' +
      'without its hash: keep the `content_sha256` received with your copy to check it). A report of the same period asked for after the erasure shows that subject\'s RUT as erased (zeros).',
  })
  @ApiProduces('text/plain; charset=us-ascii')
  @ApiOkResponse({ description: 'The file.', schema: { type: 'string' } })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['report_not_ready', 'report_failed', 'concurrent_change'], 410: ['report_content_erased'] })
  async content(@Param('reportId', REPORT_ID) reportId: string, @CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) reply: FastifyReply): Promise<StreamableFile> {
    const report = await this.report(principal.tenantId, reportId);
    if (report.status === 'failed') throw conflict('report_failed', 'The report could not be rendered; see failureReason.');
    if (!report.rendered) {
      void reply.header('Retry-After', String(REPORT_RETRY_AFTER_SECONDS));
      throw conflict('report_not_ready', 'The report is being rendered; retry later.');
    }
    const { rendered } = report;
    const key = rendered.contentSha256 === undefined ? await this.reportKeys.keyOf(principal.tenantId, reportId) : null;
    if (report.contentErased || (rendered.contentSha256 === undefined && !key)) throw reportContentErased();
    const stored = await this.blobs.get(principal.tenantId, contentBlobOf(rendered));
    if (!stored) throw notFound('report content');
    const { content, contentSha256 } = await openReportContent(rendered, key, stored);
    const { kind, institutionCode, periodEnd } = report.request;
    void reply
      .header('Content-Type', 'text/plain; charset=us-ascii')
      .header('Content-Disposition', `attachment; filename="${kind.toUpperCase()}_${institutionCode}_${localDateOf(periodEnd).replace(/-/g, '')}.txt"`)
      .header('X-Content-Type-Options', 'nosniff')
      .header('ETag', `"${contentSha256}"`);
    return new StreamableFile(content);
  }

  private async report(tenantId: string, reportId: string): Promise<Report> {
    const report = await readReport(this.store, tenantId, reportId);
    if (!report) throw notFound('report');
    return report;
  }
}

/** `contentSha256`: reportContentSha256's, the hash the report shows while its content is held. */
export function reportView({ request, status, rendered, failure, contentErased }: Report, contentSha256: string | null): ReportDto {
  return {
    reportId: request.reportId,
    kind: request.kind,
    status,
    periodStart: request.periodStart,
    periodEnd: request.periodEnd,
    records: rendered?.records ?? null,
    metadata: rendered?.metadata ?? null,
    contentSha256,
    layoutVersion: request.layoutVersion,
    institutionCode: request.institutionCode,
    requestedAt: request.requestedAt,
    renderedAt: rendered?.renderedAt ?? null,
    contentErasedAt: contentErased?.erasedAt ?? null,
    failureReason: failure?.reason ?? null,
  };
}
