import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes, validationError } from '@ledger/platform';
import { ConsentListDto } from '../consent-representation.dto';
import { ConsentLookup, LookupConsentsQuery } from './lookup-consents.query';
import { IDENTITY, IdentityCharacters } from '../../../dto-fields';
import { ReadsReadModel } from '../../../openapi/problem-responses';

export class LookupConsentsQueryDto {
  @ApiPropertyOptional({ description: 'Exactly one of internalConsentCode and creditOperationReference.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  internalConsentCode?: string;

  @ApiPropertyOptional({ description: `Exactly one of internalConsentCode and creditOperationReference. ${IDENTITY}` })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IdentityCharacters()
  creditOperationReference?: string;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class LookupConsentsHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'lookupRedecConsents',
    summary: 'Find consents by internal code or credit operation reference',
    description:
      'Exactly one of `internalConsentCode` and `creditOperationReference`, answered `{ consents }` with every match at once; an unknown value, or a value of another tenant, gives an empty list. ' +
      "Neither of them, both, or any other parameter (a page's `limit`, `cursor`, `updatedAfter`) is 400 `VALIDATION_ERROR`. " +
      'Every consent of the tenant, page by page, is `GET /v1/redec/consent-exports`. Scope `consent:read`.',
  })
  @ApiOkResponse({ type: ConsentListDto })
  lookup(@Query() query: LookupConsentsQueryDto, @CurrentPrincipal() principal: Principal): Promise<ConsentListDto> {
    return this.queryBus.execute(new LookupConsentsQuery(principal.tenantId, exactlyOne(query)));
  }
}

function exactlyOne({ internalConsentCode, creditOperationReference }: LookupConsentsQueryDto): ConsentLookup {
  if (internalConsentCode !== undefined && creditOperationReference === undefined) return { internalConsentCode };
  if (creditOperationReference !== undefined && internalConsentCode === undefined) return { creditOperationReference };
  throw validationError('Send exactly one of internalConsentCode and creditOperationReference; every consent of the tenant, paged, is GET /v1/redec/consent-exports.', {
    reason: 'exactly_one_lookup_parameter',
    errors: [{ field: 'internalConsentCode', reason: 'exactly_one_lookup_parameter' }, { field: 'creditOperationReference', reason: 'exactly_one_lookup_parameter' }],
  });
}
