import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConfigurationDocument } from '@ledger/redec';
import { ConfigurationResponseDto, configurationResponse } from '../configuration.response.dto';
import { GetConfigurationQuery } from './get-configuration.query';
import { ResourceIdPipe } from '../../resource-id.pipe';

@ApiTags('configurations')
@ApiBearerAuth()
@Controller('v1/configurations')
export class GetConfigurationHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get(':configurationId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getConfiguration',
    summary: 'Read a published configuration version',
    description: 'Exactly what was published under this id, which never changes. An unknown id, or an id of another tenant, is 404 `NOT_FOUND`. Scope `consent:read`.',
  })
  @ApiParam({ name: 'configurationId', description: 'The id returned when the version was published.' })
  @ApiOkResponse({ type: ConfigurationResponseDto })
  async get(@Param('configurationId', new ResourceIdPipe('configuration')) configurationId: string, @CurrentPrincipal() principal: Principal): Promise<ConfigurationResponseDto> {
    const configuration = await this.queryBus.execute<GetConfigurationQuery, ConfigurationDocument>(new GetConfigurationQuery(principal.tenantId, configurationId));
    return configurationResponse(configuration);
  }
}
