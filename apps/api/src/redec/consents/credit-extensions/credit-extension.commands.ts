import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { CreditExtensionAnswer, EndExtensionRequest, RegisterExtensionRequest, endCreditExtension, registerCreditExtension } from '@ledger/redec';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';

export class RegisterCreditExtensionCommand {
  constructor(
    readonly redecConsentId: string,
    readonly request: RegisterExtensionRequest,
  ) {}
}

export class EndCreditExtensionCommand {
  constructor(
    readonly redecConsentId: string,
    readonly creditExtensionId: string,
    readonly request: EndExtensionRequest,
  ) {}
}

@CommandHandler(RegisterCreditExtensionCommand)
export class RegisterCreditExtensionHandler implements ICommandHandler<RegisterCreditExtensionCommand, CreditExtensionAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ redecConsentId, request }: RegisterCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    const { result, position } = await registerCreditExtension(this.store, redecConsentId, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(position);
    return result;
  }
}

@CommandHandler(EndCreditExtensionCommand)
export class EndCreditExtensionHandler implements ICommandHandler<EndCreditExtensionCommand, CreditExtensionAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ redecConsentId, creditExtensionId, request }: EndCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    const { result, position } = await endCreditExtension(this.store, redecConsentId, creditExtensionId, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(position);
    return result;
  }
}
