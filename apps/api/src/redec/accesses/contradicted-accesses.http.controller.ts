import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { DENY_REASON_CODES, listContradictedDecisions } from '@ledger/redec';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from '../../page-query.dto';
import { ReadsReadModel } from '../../openapi/problem-responses';

class ContradictingFactDto {
  @ApiProperty({ format: 'uuid', description: 'The id of the fact (an event of the consent\'s stream): its audit replay and its inclusion proof name it.' }) eventId!: string;
  @ApiProperty({ example: 'RevocationRecorded' }) type!: string;
  @ApiProperty({ type: 'integer', description: 'Its position in the ledger: after the decision\'s.' }) position!: number;
  @ApiProperty({ type: 'integer', description: 'When the service recorded it (epoch ms).' }) recordedAt!: number;
}

class ObligationNamedDto {
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
}

class AccessOutcomeDto {
  @ApiProperty({ enum: ['accessed', 'failed', 'cancelled'] }) kind!: string;
  @ApiPropertyOptional({ type: 'integer' }) accessedAt?: number;
}

class ContradictedDecisionDto {
  @ApiProperty({ format: 'uuid' }) redecAccessId!: string;
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ type: 'integer', description: 'When the access was authorized (epoch ms).' }) decidedAt!: number;
  @ApiProperty({ enum: ['initial_window', 'credit_lifecycle_extension'] }) consentAuthorizationMode!: string;
  @ApiProperty({ type: 'string', nullable: true, enum: ['manage_existing_obligation', 'evaluate_new_credit'] }) accessPurpose!: string | null;
  @ApiProperty({ type: ObligationNamedDto, description: 'The request\'s reportingObligation.' }) reportingObligation!: ObligationNamedDto;
  @ApiProperty() objectiveCode!: string;
  @ApiProperty({ enum: DENY_REASON_CODES, description: 'What the consent\'s facts, as they stand now, answer for this access at decidedAt.' }) denyReasonCode!: string;
  @ApiProperty({ type: AccessOutcomeDto, nullable: true, description: 'The outcome the bank confirmed, if it did: `accessed` means the registry was queried.' }) confirmation!: AccessOutcomeDto | null;
  @ApiProperty({ type: ContradictingFactDto, description: 'The fact recorded after the decision that turned the consent\'s facts against it.' }) contradictedBy!: ContradictingFactDto;
}

class ContradictedDecisionsDto {
  @ApiProperty({ type: [ContradictedDecisionDto] }) items!: ContradictedDecisionDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null after the last.' }) nextCursor!: string | null;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/accesses')
export class ContradictedAccessesHttpController {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @ReadsReadModel()
  @Get('contradicted')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listContradictedAccesses',
    summary: 'Authorized accesses that facts reported later contradict',
    description:
      'An authorization is a fact made on what was known when it was decided, and stays one (decision 0056). A fact the bank reports later can show that the consent ' +
      'did not enable that access at `decidedAt` after all: a revocation back-dated before it, an obligation that ended before it, an extension annulled, or an obligation ' +
      'named as superseding another of the consent. Each such authorization is listed once, with what the consent\'s facts answer now (`denyReasonCode`), whether the bank ' +
      'confirmed the access, and the fact that contradicts it. Ordered by consent, then by when each decision was recorded; paged with `limit` and `cursor` ' +
      '(400 `invalid_cursor` for a cursor this list did not hand out). Scope `consent:read`.',
  })
  @ApiOkResponse({ type: ContradictedDecisionsDto })
  list(@Query() query: PageQueryDto, @CurrentPrincipal() principal: Principal): Promise<ContradictedDecisionsDto> {
    return listContradictedDecisions(this.readModel, this.store, principal.tenantId, { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor ?? null });
  }
}
