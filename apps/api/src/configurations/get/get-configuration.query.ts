import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '@ledger/platform';
import { ConfigurationDocument } from '@ledger/redec';
import { PublishedConfigurations } from '../published-configurations';

export class GetConfigurationQuery {
  constructor(
    readonly tenantId: string,
    readonly configurationId: string,
  ) {}
}

@QueryHandler(GetConfigurationQuery)
export class GetConfigurationHandler implements IQueryHandler<GetConfigurationQuery, ConfigurationDocument> {
  constructor(private readonly configurations: PublishedConfigurations) {}

  async execute({ tenantId, configurationId }: GetConfigurationQuery): Promise<ConfigurationDocument> {
    const configuration = await this.configurations.find(tenantId, configurationId);
    if (!configuration) throw notFound('configuration');
    return configuration;
  }
}
