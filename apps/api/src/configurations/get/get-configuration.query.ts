import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { ConfigurationDocument, readConfiguration } from '@ledger/redec';

export class GetConfigurationQuery {
  constructor(
    readonly tenantId: string,
    readonly configurationId: string,
  ) {}
}

@QueryHandler(GetConfigurationQuery)
export class GetConfigurationHandler implements IQueryHandler<GetConfigurationQuery, ConfigurationDocument> {
  constructor(private readonly readModel: ReadModel) {}

  async execute({ tenantId, configurationId }: GetConfigurationQuery): Promise<ConfigurationDocument> {
    const configuration = await readConfiguration(this.readModel, tenantId, configurationId);
    if (!configuration) throw notFound('configuration');
    return configuration;
  }
}
