import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConsentRepresentationDto } from '../consent-representation.dto';
import { GetConsentQuery } from './get-consent.query';
import { ResourceIdPipe } from '../../../resource-id.pipe';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class GetConsentHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get(':redecConsentId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getRedecConsent',
    summary: 'The regulatory consent representation',
    description: 'Status, validity and retention are derived from the facts and the clock at read time. Consistent with the command that just returned.',
  })
  @ApiOkResponse({ type: ConsentRepresentationDto })
  get(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @CurrentPrincipal() principal: Principal): Promise<ConsentRepresentationDto> {
    return this.queryBus.execute(new GetConsentQuery(principal.tenantId, redecConsentId));
  }
}
