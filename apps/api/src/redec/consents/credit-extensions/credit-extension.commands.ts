import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CreditExtensionAnswer, EndExtensionRequest, RegisterExtensionRequest, endCreditExtension, registerCreditExtension } from '@ledger/redec';
import { RequestCommands } from '../../../request-commands';

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
  constructor(private readonly commands: RequestCommands) {}

  execute({ redecConsentId, request }: RegisterCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    return this.commands.run((store, context) => registerCreditExtension(store, redecConsentId, request, context));
  }
}

@CommandHandler(EndCreditExtensionCommand)
export class EndCreditExtensionHandler implements ICommandHandler<EndCreditExtensionCommand, CreditExtensionAnswer> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ redecConsentId, creditExtensionId, request }: EndCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    return this.commands.run((store, context) => endCreditExtension(store, redecConsentId, creditExtensionId, request, context));
  }
}
