import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { NotificationEvidenceAnswer, NotificationEvidenceRequest, recordNotificationEvidence } from '@ledger/redec';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';

export class RecordNotificationEvidenceCommand {
  constructor(
    readonly redecConsentId: string,
    readonly request: NotificationEvidenceRequest,
  ) {}
}

@CommandHandler(RecordNotificationEvidenceCommand)
export class RecordNotificationEvidenceHandler implements ICommandHandler<RecordNotificationEvidenceCommand, NotificationEvidenceAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ redecConsentId, request }: RecordNotificationEvidenceCommand): Promise<NotificationEvidenceAnswer> {
    const { result, position } = await recordNotificationEvidence(this.store, redecConsentId, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(position);
    return result;
  }
}
