import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection } from '@ledger/platform';
import { CreateInteractionRequest, CreateInteractionResult, InteractionPurpose, ProfileCatalog, createInteraction } from '@ledger/redec';
import { PublishedConfigurations } from '../../../configurations/published-configurations';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';

export class CreateInteractionCommand {
  constructor(
    readonly request: CreateInteractionRequest,
    readonly purpose: Exclude<InteractionPurpose, 'embedded'>,
  ) {}
}

@CommandHandler(CreateInteractionCommand)
export class CreateInteractionHandler implements ICommandHandler<CreateInteractionCommand, CreateInteractionResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly protection: IdentifierProtection,
    @Inject(CUSTOMER_KEY_TABLE) private readonly blindIndex: CustomerKeyTable,
    private readonly profiles: ProfileCatalog,
    private readonly configurations: PublishedConfigurations,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ request, purpose }: CreateInteractionCommand): Promise<CreateInteractionResult> {
    const result = await createInteraction(
      {
        store: this.store,
        protection: this.protection,
        blindIndex: this.blindIndex,
        profiles: this.profiles,
        findConfiguration: (tenantId, configurationId) => this.configurations.find(tenantId, configurationId),
      },
      request,
      requestCommandContext(this.clock),
      purpose,
    );
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
