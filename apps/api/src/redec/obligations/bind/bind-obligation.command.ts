import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ReadModel } from '@ledger/projections';
import { AnnulBindingResult, AnnulRequest, BindObligationRequest, BindObligationResult, ProfileCatalog, annulBinding, bindObligation, findObligationOfBinding } from '@ledger/redec';
import { RequestCommands } from '../../../request-commands';

export class BindObligationCommand {
  constructor(readonly request: BindObligationRequest) {}
}

export class AnnulBindingCommand {
  constructor(
    readonly bindingId: string,
    readonly request: AnnulRequest,
  ) {}
}

@CommandHandler(BindObligationCommand)
export class BindObligationHandler implements ICommandHandler<BindObligationCommand, BindObligationResult> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
  ) {}

  /** Answers once the lookup can see the binding: the bank looks the code up right after binding. */
  execute({ request }: BindObligationCommand): Promise<BindObligationResult> {
    return this.commands.run(async (store, context) => {
      const result = await bindObligation({ store, profiles: this.profiles }, request, context);
      return { result, position: result.position };
    });
  }
}

@CommandHandler(AnnulBindingCommand)
export class AnnulBindingHandler implements ICommandHandler<AnnulBindingCommand, AnnulBindingResult> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly readModel: ReadModel,
  ) {}

  execute({ bindingId, request }: AnnulBindingCommand): Promise<AnnulBindingResult> {
    const obligationOf = (tenantId: string, id: string) => findObligationOfBinding(this.readModel, tenantId, id);
    return this.commands.run(async (store, context) => {
      const result = await annulBinding({ store, obligationOf }, bindingId, request, context);
      return { result, position: result.position };
    });
  }
}
