import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BindObligationRequest, BindObligationResult, bindObligation } from '@ledger/redec';
import { RequestCommands } from '../../../request-commands';

export class BindObligationCommand {
  constructor(readonly request: BindObligationRequest) {}
}

@CommandHandler(BindObligationCommand)
export class BindObligationHandler implements ICommandHandler<BindObligationCommand, BindObligationResult> {
  constructor(private readonly commands: RequestCommands) {}

  /** Answers once the lookup can see the binding: the bank looks the code up right after binding. */
  execute({ request }: BindObligationCommand): Promise<BindObligationResult> {
    return this.commands.run(async (store, context) => {
      const result = await bindObligation({ store }, request, context);
      return { result, position: result.position };
    });
  }
}
