import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConfigurationDocument } from '@ledger/redec';
import { ConfigurationResponseDto, configurationResponse } from '../configuration.response.dto';
import { ListConfigurationVersionsQuery } from './list-configuration-versions.query';
import { ReadsReadModel } from '../../openapi/problem-responses';

export class ListConfigurationVersionsQueryDto {
  @ApiProperty({ description: 'The template whose published versions to list.', maxLength: 100 })
  @IsDefined()
  @IsString()
  @MaxLength(100)
  templateKey!: string;
}

export class ConfigurationVersionsResponseDto {
  @ApiProperty({ description: 'Every published version of the template in this tenant, oldest first; empty for an unknown template key.', type: [ConfigurationResponseDto] })
  configurations!: ConfigurationResponseDto[];
}

@ApiTags('configurations')
@ApiBearerAuth()
@Controller('v1/configurations')
export class ListConfigurationVersionsHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listConfigurations',
    summary: 'List the published versions of a template',
    description: 'Versions 1, 2, 3… of `templateKey` in the tenant of the key, oldest first, each as published. Scope `consent:read`.',
  })
  @ApiOkResponse({ type: ConfigurationVersionsResponseDto })
  async list(@Query() query: ListConfigurationVersionsQueryDto, @CurrentPrincipal() principal: Principal): Promise<ConfigurationVersionsResponseDto> {
    const versions = await this.queryBus.execute<ListConfigurationVersionsQuery, ConfigurationDocument[]>(
      new ListConfigurationVersionsQuery(principal.tenantId, query.templateKey),
    );
    return { configurations: versions.map(configurationResponse) };
  }
}
