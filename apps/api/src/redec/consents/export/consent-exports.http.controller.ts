import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { CLOCK, Clock, Principal, Scopes } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { exportConsents } from '@ledger/redec';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from '../../../page-query.dto';
import { ConsentExportPageDto } from '../consent-representation.dto';
import { ReadsReadModel } from '../../../openapi/problem-responses';

export class ConsentExportQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: "Start after this instant (epoch ms), compared with the consent's `updatedAt`; the first page only (with `cursor`: 400 `not_with_cursor`).",
    pattern: '^\\d{1,15}$',
  })
  @IsOptional()
  @Matches(/^\d{1,15}$/)
  updatedAfter?: string;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consent-exports')
export class ConsentExportsHttpController {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @ReadsReadModel()
  @Get()
  @NoStore()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'exportRedecConsents',
    summary: 'Export every consent of the tenant, page by page (auditors)',
    description:
      "Every consent of the tenant in its regulatory representation with `updatedAt` (when its last fact was recorded), ordered by `updatedAt` then id, answered `{ items, nextCursor }`: " +
      '`limit` per page (1 to 200, default 50), `updatedAfter` (epoch ms) to start after an instant, then `cursor` (the previous `nextCursor`, opaque; 400 `invalid_cursor` for one this list did not hand out) ' +
      'for the following pages, until `nextCursor` is null. ' +
      'A consent changed while an export pages moves past the cursor and shows again later, never skipped: an incremental export keeps the largest `updatedAt` it saw and starts the next run after it. ' +
      'Also `ledger export consents --tenant T [--from] [--to]` (NDJSON). Scope `consent:read`.',
  })
  @ApiOkResponse({ type: ConsentExportPageDto })
  export(@Query() query: ConsentExportQueryDto, @CurrentPrincipal() principal: Principal): Promise<ConsentExportPageDto> {
    const { updatedAfter, cursor, limit } = query;
    const page = { updatedAfter: updatedAfter === undefined ? null : Number(updatedAfter), cursor: cursor ?? null, limit: limit ?? DEFAULT_PAGE_LIMIT, now: this.clock.now() };
    return exportConsents(this.readModel, principal.tenantId, page);
  }
}
