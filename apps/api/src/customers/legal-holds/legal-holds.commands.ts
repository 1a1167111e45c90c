import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LegalHoldChange, PlaceLegalHoldRequest, placeLegalHold, releaseLegalHold } from '@ledger/ledger';
import { RequestCommands } from '../../request-commands';
import { LegalHoldResponseDto } from './legal-hold.dto';

export class PlaceLegalHoldCommand {
  constructor(
    readonly customerId: string,
    readonly request: PlaceLegalHoldRequest,
  ) {}
}

export class ReleaseLegalHoldCommand {
  constructor(
    readonly customerId: string,
    readonly legalHoldId: string,
  ) {}
}

@CommandHandler(PlaceLegalHoldCommand)
export class PlaceLegalHoldHandler implements ICommandHandler<PlaceLegalHoldCommand, LegalHoldResponseDto> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ customerId, request }: PlaceLegalHoldCommand): Promise<LegalHoldResponseDto> {
    return this.commands.run(async (store, context) => answer(await placeLegalHold(store, customerId, request, context)));
  }
}

@CommandHandler(ReleaseLegalHoldCommand)
export class ReleaseLegalHoldHandler implements ICommandHandler<ReleaseLegalHoldCommand, LegalHoldResponseDto> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ customerId, legalHoldId }: ReleaseLegalHoldCommand): Promise<LegalHoldResponseDto> {
    return this.commands.run(async (store, context) => answer(await releaseLegalHold(store, customerId, legalHoldId, context)));
  }
}

function answer({ customerId, legalHold, position }: LegalHoldChange) {
  return { result: { customerId, ...legalHold }, position };
}
