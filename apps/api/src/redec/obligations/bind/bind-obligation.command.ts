import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { BindObligationRequest, BindObligationResult, bindObligation } from '@ledger/redec';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';

export class BindObligationCommand {
  constructor(readonly request: BindObligationRequest) {}
}

@CommandHandler(BindObligationCommand)
export class BindObligationHandler implements ICommandHandler<BindObligationCommand, BindObligationResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** Answers once the lookup can see the binding: the bank looks the code up right after binding. */
  async execute({ request }: BindObligationCommand): Promise<BindObligationResult> {
    const result = await bindObligation({ store: this.store }, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
