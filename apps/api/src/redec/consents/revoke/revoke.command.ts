import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { ProfileCatalog, RevocationAnswer, RevokeRequest, revokeConsent } from '@ledger/redec';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';

export class RevokeConsentCommand {
  constructor(
    readonly redecConsentId: string,
    readonly request: RevokeRequest,
  ) {}
}

@CommandHandler(RevokeConsentCommand)
export class RevokeConsentHandler implements ICommandHandler<RevokeConsentCommand, RevocationAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly profiles: ProfileCatalog,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ redecConsentId, request }: RevokeConsentCommand): Promise<RevocationAnswer> {
    const { result, position } = await revokeConsent({ store: this.store, profiles: this.profiles }, redecConsentId, request, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(position);
    return result;
  }
}
