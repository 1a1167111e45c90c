import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable, ResolveCustomerRequest, ResolveCustomerResult, resolveCustomer } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection } from '@ledger/platform';
import { ReadYourWrites } from '../../read-your-writes';
import { requestCommandContext } from '../../request-command-context';

export class ResolveCustomerCommand {
  constructor(readonly request: ResolveCustomerRequest) {}
}

@CommandHandler(ResolveCustomerCommand)
export class ResolveCustomerHandler implements ICommandHandler<ResolveCustomerCommand, ResolveCustomerResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly protection: IdentifierProtection,
    @Inject(CUSTOMER_KEY_TABLE) private readonly blindIndex: CustomerKeyTable,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ request }: ResolveCustomerCommand): Promise<ResolveCustomerResult> {
    const result = await resolveCustomer({ store: this.store, protection: this.protection, blindIndex: this.blindIndex }, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
