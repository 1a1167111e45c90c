import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotificationEvidenceAnswer, NotificationEvidenceRequest, recordNotificationEvidence } from '@ledger/redec';
import { RequestCommands } from '../../../request-commands';

export class RecordNotificationEvidenceCommand {
  constructor(
    readonly redecConsentId: string,
    readonly request: NotificationEvidenceRequest,
  ) {}
}

@CommandHandler(RecordNotificationEvidenceCommand)
export class RecordNotificationEvidenceHandler implements ICommandHandler<RecordNotificationEvidenceCommand, NotificationEvidenceAnswer> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ redecConsentId, request }: RecordNotificationEvidenceCommand): Promise<NotificationEvidenceAnswer> {
    return this.commands.run((store, context) => recordNotificationEvidence(store, redecConsentId, request, context));
  }
}
