import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { ConfigurationContent, ConfigurationPublished, ProfileCatalog, publishConfiguration } from '@ledger/redec';
import { ReadYourWrites } from '../../read-your-writes';
import { requestCommandContext } from '../../request-command-context';

export class PublishConfigurationCommand {
  constructor(readonly content: ConfigurationContent) {}
}

@CommandHandler(PublishConfigurationCommand)
export class PublishConfigurationHandler implements ICommandHandler<PublishConfigurationCommand, ConfigurationPublished['data']> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly profiles: ProfileCatalog,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ content }: PublishConfigurationCommand): Promise<ConfigurationPublished['data']> {
    const result = await publishConfiguration(this.store, this.profiles, content, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(result.position);
    return result.configuration;
  }
}
