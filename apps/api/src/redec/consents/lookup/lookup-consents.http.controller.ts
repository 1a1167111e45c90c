import { Controller, Get, Inject, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { CLOCK, Clock, Principal, Scopes, validationError } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { exportConsents } from '@ledger/redec';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from '../../../page-query.dto';
import { ConsentExportPageDto, ConsentListDto } from '../consent-representation.dto';
import { ConsentLookup, LookupConsentsQuery } from './lookup-consents.query';

export class LookupConsentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: "Export only: start after this instant (epoch ms), compared with the consent's `updatedAt`; the first page only.", pattern: '^\\d{1,15}$' })
  @IsOptional()
  @Matches(/^\d{1,15}$/)
  updatedAfter?: string;

  @ApiPropertyOptional({ description: 'Exactly one of internalConsentCode and creditOperationReference.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  internalConsentCode?: string;

  @ApiPropertyOptional({ description: 'Exactly one of internalConsentCode and creditOperationReference.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  creditOperationReference?: string;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
@ApiExtraModels(ConsentListDto, ConsentExportPageDto)
export class LookupConsentsHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    summary: 'Find consents by internal code or credit operation reference (spec 4), or export them all (auditors)',
    description:
      'Lookup: exactly one of `internalConsentCode` and `creditOperationReference`, answered `{ consents }`; an unknown value, or a value of another tenant, gives an empty list. ' +
      "Export: neither of them, answered `{ items, nextCursor }`: every consent of the tenant in its regulatory representation with `updatedAt` (when its last fact was recorded), ordered by `updatedAt` then id, " +
      '`limit` per page (1 to 200, default 50), `updatedAfter` (epoch ms) to start after an instant, then `cursor` (the previous `nextCursor`, opaque) for the following pages. ' +
      'A consent changed while an export pages moves past the cursor and shows again later, never skipped: an incremental export keeps the largest `updatedAt` it saw and starts the next run after it. ' +
      'Also `ledger export consents --tenant T [--from] [--to]` (NDJSON). Scope `consent:read`.',
  })
  @ApiOkResponse({ schema: { oneOf: [{ $ref: getSchemaPath(ConsentListDto) }, { $ref: getSchemaPath(ConsentExportPageDto) }] } })
  lookup(@Query() query: LookupConsentsQueryDto, @CurrentPrincipal() principal: Principal): Promise<ConsentListDto | ConsentExportPageDto> {
    const { internalConsentCode, creditOperationReference, updatedAfter, cursor, limit } = query;
    if (internalConsentCode === undefined && creditOperationReference === undefined) {
      const page = { updatedAfter: updatedAfter === undefined ? null : Number(updatedAfter), cursor: cursor ?? null, limit: limit ?? DEFAULT_PAGE_LIMIT, now: this.clock.now() };
      return exportConsents(this.readModel, principal.tenantId, page);
    }
    if (updatedAfter !== undefined || cursor !== undefined || limit !== undefined) {
      throw validationError('updatedAfter, cursor and limit page the export; a lookup answers every match at once.', {
        errors: [{ field: updatedAfter !== undefined ? 'updatedAfter' : cursor !== undefined ? 'cursor' : 'limit', reason: 'not_with_lookup' }],
      });
    }
    return this.queryBus.execute(new LookupConsentsQuery(principal.tenantId, exactlyOne(query)));
  }
}

function exactlyOne({ internalConsentCode, creditOperationReference }: LookupConsentsQueryDto): ConsentLookup {
  if (internalConsentCode !== undefined && creditOperationReference === undefined) return { internalConsentCode };
  if (creditOperationReference !== undefined && internalConsentCode === undefined) return { creditOperationReference };
  throw validationError('Send exactly one of internalConsentCode and creditOperationReference.', {
    reason: 'exactly_one_lookup_parameter',
    errors: [{ field: 'internalConsentCode', reason: 'exactly_one_lookup_parameter' }, { field: 'creditOperationReference', reason: 'exactly_one_lookup_parameter' }],
  });
}
