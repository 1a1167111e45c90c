import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CompletedConsentDecision } from '@ledger/consents';
import { RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { ResourceIdPipe } from '../../resource-id.pipe';
import { ConsentDecisionDto, consentDecisionView } from '../consent-decision.response.dto';
import { GetConsentDecisionQuery } from './get-consent-decision.query';

@ApiTags('consents')
@ApiBearerAuth()
@Controller('v1/consent-decisions')
export class GetConsentDecisionHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get(':decisionId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getConsentDecision',
    summary: 'A Multi-Consent decision and the consents it recorded',
    description:
      'As POST /v1/consent-decisions answered it, for a decision sent to the API or taken on an embed session (`embedSessionId`). Reading it records any consent of the decision still missing (a process stopped in between). Another tenant’s decision is 404.',
  })
  @ApiOkResponse({ type: ConsentDecisionDto })
  async get(@Param('decisionId', new ResourceIdPipe('consent decision')) decisionId: string): Promise<ConsentDecisionDto> {
    return consentDecisionView(await this.queryBus.execute<GetConsentDecisionQuery, CompletedConsentDecision>(new GetConsentDecisionQuery(decisionId)));
  }
}
