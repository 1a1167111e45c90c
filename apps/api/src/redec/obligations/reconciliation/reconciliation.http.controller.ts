import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { listObligationsToReconcile } from '@ledger/redec';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from '../../../page-query.dto';
import { ReadsReadModel } from '../../../openapi/problem-responses';

class ObligationToReconcileDto {
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() obligationReference!: string;
  @ApiProperty({ enum: ['unresolved', 'ambiguous'] }) result!: string;
  @ApiProperty({ type: [String], description: 'The consents the ledger relates to the obligation: those its bindings in force name, and those it superseded an obligation of.' })
  redecConsentIds!: string[];
}

class ReconciliationDto {
  @ApiProperty({ type: [ObligationToReconcileDto] }) items!: ObligationToReconcileDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null after the last.' }) nextCursor!: string | null;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/reportable-obligations')
export class ReconciliationHttpController {
  constructor(private readonly readModel: ReadModel) {}

  @ReadsReadModel()
  @Get('reconciliation')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listObligationReconciliation',
    summary: 'Obligations whose consent code the bank must reconcile',
    description:
      'Every obligation the ledger knows (bound, extended, or named as superseding an extension) whose consent-code lookup is `unresolved` or `ambiguous`: ' +
      'the bank must stop generating RDC01/RDC02 for it until it is bound right. An obligation whose bindings were all annulled, a superseding obligation ' +
      "not bound since, and one whose binding or extension its consent's later facts took away (a revocation back-dated before its grant, decision 0054) are `unresolved`. " +
      'Each page is read exactly as the lookup is, so it may hold fewer than `limit` items; only a null `nextCursor` ends the list. ' +
      'Paged with `limit` and `cursor`, in a stable order that means nothing else. Scope `consent:read`.',
  })
  @ApiOkResponse({ type: ReconciliationDto })
  list(@Query() query: PageQueryDto, @CurrentPrincipal() principal: Principal): Promise<ReconciliationDto> {
    return listObligationsToReconcile(this.readModel, principal.tenantId, { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor ?? null });
  }
}
