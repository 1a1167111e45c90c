import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { IdentifierProtection } from '@ledger/platform';
import { AccessAggregates, AccessOutcome, AccessRecord, AccessRequestInput, AuthorizeResult, ProfileCatalog, authorizeAccess, confirmAccess } from '@ledger/redec';
import { RequestCommands } from '../../request-commands';

export class AuthorizeAccessCommand {
  constructor(readonly request: AccessRequestInput) {}
}

export class ConfirmAccessCommand {
  constructor(
    readonly redecAccessId: string,
    readonly outcome: AccessOutcome,
  ) {}
}

// Neither waits for the read model, and authorize is the hot path: what the API reads of access facts is the contradicted list
// (decision 0056), which only a later fact of the consent fills, and that fact's command waits for its own position, after theirs.

@CommandHandler(AuthorizeAccessCommand)
export class AuthorizeAccessHandler implements ICommandHandler<AuthorizeAccessCommand, AuthorizeResult> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
    private readonly protection: IdentifierProtection,
    private readonly aggregates: AccessAggregates,
  ) {}

  execute({ request }: AuthorizeAccessCommand): Promise<AuthorizeResult> {
    return authorizeAccess({ store: this.commands.store, profiles: this.profiles, protection: this.protection, aggregates: this.aggregates }, request, this.commands.context());
  }
}

@CommandHandler(ConfirmAccessCommand)
export class ConfirmAccessHandler implements ICommandHandler<ConfirmAccessCommand, AccessRecord> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
    private readonly protection: IdentifierProtection,
    private readonly aggregates: AccessAggregates,
  ) {}

  async execute({ redecAccessId, outcome }: ConfirmAccessCommand): Promise<AccessRecord> {
    return (await confirmAccess({ store: this.commands.store, profiles: this.profiles, protection: this.protection, aggregates: this.aggregates }, redecAccessId, outcome, this.commands.context())).record;
  }
}
