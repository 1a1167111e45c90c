import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { ProfileCatalog, loadProfileCatalog } from '@ledger/redec';
import { ReadYourWrites } from '../read-your-writes';
import { GetConfigurationHttpController } from './get/get-configuration.http.controller';
import { GetConfigurationHandler } from './get/get-configuration.query';
import { ListConfigurationVersionsHttpController } from './list/list-configuration-versions.http.controller';
import { ListConfigurationVersionsHandler } from './list/list-configuration-versions.query';
import { PublishConfigurationHandler } from './publish/publish-configuration.command';
import { PublishConfigurationHttpController } from './publish/publish-configuration.http.controller';
import { PublishedConfigurations } from './published-configurations';

/**
 * Configurations, and the Regulatory Profiles they name. The catalog is
 * global: interactions and grants judge identifiers and evidence with it;
 * so are the published versions, which every capture opens on.
 */
@Module({})
export class ConfigurationsModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    // Read here, before Nest builds the application: an invalid profiles file
    // must fail the start-up with its message, and a provider factory that
    // throws makes Nest abort the process instead.
    const profiles = loadProfileCatalog(config.profilesFile);
    return {
      module: ConfigurationsModule,
      global: true,
      controllers: [PublishConfigurationHttpController, ListConfigurationVersionsHttpController, GetConfigurationHttpController],
      providers: [
        { provide: ProfileCatalog, useValue: profiles },
        PublishConfigurationHandler,
        GetConfigurationHandler,
        ListConfigurationVersionsHandler,
        ReadYourWrites,
        PublishedConfigurations,
      ],
      exports: [ProfileCatalog, PublishedConfigurations],
    };
  }
}
