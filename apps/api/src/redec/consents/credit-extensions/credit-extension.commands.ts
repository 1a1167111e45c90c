import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ReadModel } from '@ledger/projections';
import {
  AnnulRequest,
  CreditExtensionAnnulmentAnswer,
  CreditExtensionAnswer,
  EndExtensionRequest,
  ObligationElsewhere,
  ObligationRef,
  ProfileCatalog,
  RegisterExtensionRequest,
  annulCreditExtension,
  endCreditExtension,
  readObligation,
  registerCreditExtension,
} from '@ledger/redec';
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

export class AnnulCreditExtensionCommand {
  constructor(
    readonly redecConsentId: string,
    readonly creditExtensionId: string,
    readonly annulled: CreditExtensionAnnulmentAnswer['annulled'],
    readonly request: AnnulRequest,
  ) {}
}

@CommandHandler(RegisterCreditExtensionCommand)
export class RegisterCreditExtensionHandler implements ICommandHandler<RegisterCreditExtensionCommand, CreditExtensionAnswer> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
    private readonly readModel: ReadModel,
  ) {}

  execute({ redecConsentId, request }: RegisterCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    const obligationElsewhere = (tenantId: string, obligation: ObligationRef) => this.obligationElsewhere(tenantId, obligation);
    return this.commands.run((store, context) => registerCreditExtension({ store, profiles: this.profiles, obligationElsewhere }, redecConsentId, request, context));
  }

  /**
   * Whether the obligation's extension ended on any consent of the tenant,
   * read once the obligations model holds every fact committed before the
   * request: a registration then never misses an end already recorded.
   */
  private async obligationElsewhere(tenantId: string, obligation: ObligationRef): Promise<ObligationElsewhere> {
    await this.commands.readModelCaughtUp();
    const document = await readObligation(this.readModel, tenantId, obligation);
    return { extensionEnded: document?.creditExtensions.some((e) => e.ended) ?? false };
  }
}

@CommandHandler(EndCreditExtensionCommand)
export class EndCreditExtensionHandler implements ICommandHandler<EndCreditExtensionCommand, CreditExtensionAnswer> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly profiles: ProfileCatalog,
  ) {}

  execute({ redecConsentId, creditExtensionId, request }: EndCreditExtensionCommand): Promise<CreditExtensionAnswer> {
    return this.commands.run((store, context) => endCreditExtension({ store, profiles: this.profiles }, redecConsentId, creditExtensionId, request, context));
  }
}

@CommandHandler(AnnulCreditExtensionCommand)
export class AnnulCreditExtensionHandler implements ICommandHandler<AnnulCreditExtensionCommand, CreditExtensionAnnulmentAnswer> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ redecConsentId, creditExtensionId, annulled, request }: AnnulCreditExtensionCommand): Promise<CreditExtensionAnnulmentAnswer> {
    return this.commands.run((store, context) => annulCreditExtension(store, redecConsentId, creditExtensionId, annulled, request, context));
  }
}
