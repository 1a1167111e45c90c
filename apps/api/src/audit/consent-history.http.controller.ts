import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConsentHistory, historyTimeline } from '@ledger/redec';
import { ConsentHistoryQuery } from './consent-history.query';
import { ConsentRepresentationDto } from '../redec/consents/consent-representation.dto';
import { ResourceIdPipe } from '../resource-id.pipe';
import { ReadsReadModel } from '../openapi/problem-responses';

export class ConsentHistoryQueryDto {
  @ApiPropertyOptional({ description: 'A past instant (epoch ms): the facts recorded by then, and the representation as the ledger stated it then.', pattern: '^\\d+$' })
  @IsOptional()
  @Matches(/^\d{1,15}$/)
  at?: string;

  @ApiPropertyOptional({ enum: ['json', 'text'], description: '`text`: a human-readable timeline (text/plain). Default `json`.' })
  @IsOptional()
  @IsIn(['json', 'text'])
  format?: 'json' | 'text';
}

class HistoryEntryDto {
  @ApiProperty({ type: 'integer', description: 'Global position in the store: the order of the facts.' }) position!: number;
  @ApiProperty() stream!: string;
  @ApiProperty({ type: 'integer' }) revision!: number;
  @ApiProperty({ example: 'ConsentGranted' }) type!: string;
  @ApiProperty({ type: 'integer', description: 'When the service recorded it (epoch ms).' }) recordedAt!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'The API key id that recorded it (or `cli:<user>`, `worker:<queue>`).' }) actor!: string | null;
  @ApiProperty({ description: "SHA-256 of the fact chained to its stream's previous one (`ledger audit verify` recomputes it)." }) hash!: string;
  @ApiProperty({ type: 'string', nullable: true }) previousHash!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The fact as recorded; protected identity material appears as `{ "protected": true }`, and as `{ "protected": true, "erased": true }` once the data subject\'s data was erased (docs/decisions/0035).' }) data!: unknown;
  @ApiProperty({ type: ConsentRepresentationDto, nullable: true, description: 'The regulatory representation derived after this fact, as of its recording.' }) state!: ConsentRepresentationDto | null;
}

class DataSubjectDto {
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When its identifiers and evidence were erased (epoch ms); null while they exist.' }) erasedAt!: number | null;
}

export class ConsentHistoryDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ type: 'integer', description: 'The instant the history stands at: `at`, or now.' }) asOf!: number;
  @ApiProperty({ type: [HistoryEntryDto], description: "The consent's facts and those of its accesses and obligation bindings, in store order." }) events!: HistoryEntryDto[];
  @ApiProperty({ type: ConsentRepresentationDto, description: 'The representation as of `asOf`.' }) representation!: ConsentRepresentationDto;
  @ApiProperty({ type: DataSubjectDto, description: "The consent's customer, and when its personal data was erased after the retention floor." }) dataSubject!: DataSubjectDto;
}

/** Auditors (scope consent:audit): replay what the ledger recorded about one consent, and what it said at a past instant. */
@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class ConsentHistoryHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get(':redecConsentId/history')
  @NoStore()
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getRedecConsentHistory',
    summary: "Replay a consent's recorded history (audit)",
    description:
      'Every fact of the consent (grant, artifact, revocation and its correction, credit extensions, notification evidence) and of its accesses and obligation bindings, in store order, ' +
      'each with its position, recording time, actor key id, integrity hash and the regulatory representation derived after it. With `at`, only the facts recorded by then and the representation as of then. ' +
      '`format=text` answers a human-readable timeline. Read from the event store. Scope `consent:audit`.',
  })
  @ApiProduces('application/json', 'text/plain')
  @ApiOkResponse({ type: ConsentHistoryDto })
  async history(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @Query() query: ConsentHistoryQueryDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsentHistory | string> {
    const at = query.at === undefined ? undefined : Number(query.at);
    const history: ConsentHistory = await this.queryBus.execute(new ConsentHistoryQuery(principal.tenantId, redecConsentId, at));
    if (query.format !== 'text') return history;
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return historyTimeline(history);
  }
}
