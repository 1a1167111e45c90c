import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadModel } from '@ledger/projections';
import { ConfigurationDocument, readConfigurationVersions } from '@ledger/redec';

export class ListConfigurationVersionsQuery {
  constructor(
    readonly tenantId: string,
    readonly templateKey: string,
  ) {}
}

@QueryHandler(ListConfigurationVersionsQuery)
export class ListConfigurationVersionsHandler implements IQueryHandler<ListConfigurationVersionsQuery, ConfigurationDocument[]> {
  constructor(private readonly readModel: ReadModel) {}

  execute({ tenantId, templateKey }: ListConfigurationVersionsQuery): Promise<ConfigurationDocument[]> {
    return readConfigurationVersions(this.readModel, tenantId, templateKey);
  }
}
