import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ProfileCatalog, RevocationAnswer, RevokeRequest, revokeConsent } from '@ledger/redec';
import { RequestCommands } from '../../../request-commands';

export class RevokeConsentCommand {
  constructor(
    readonly redecConsentId: string,
    readonly request: RevokeRequest,
  ) {}
}

@CommandHandler(RevokeConsentCommand)
export class RevokeConsentHandler implements ICommandHandler<RevokeConsentCommand, RevocationAnswer> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
  ) {}

  execute({ redecConsentId, request }: RevokeConsentCommand): Promise<RevocationAnswer> {
    return this.commands.run((store, context) => revokeConsent({ store, profiles: this.profiles }, redecConsentId, request, context));
  }
}
