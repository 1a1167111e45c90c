import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock, IdentifierProtection } from '@ledger/platform';
import { BankingCalendar, GrantConsentRequest, GrantConsentResult, ProfileCatalog, grantConsent } from '@ledger/redec';
import { ReadYourWrites } from '../../../read-your-writes';
import { requestCommandContext } from '../../../request-command-context';
import { BANKING_CALENDAR } from '../../banking-calendar.provider';

export class GrantConsentCommand {
  constructor(
    readonly interactionId: string,
    readonly request: GrantConsentRequest,
    /** SHA-256 of the request as received: an identical retry answers the first grant. */
    readonly requestSha256: string,
  ) {}
}

@CommandHandler(GrantConsentCommand)
export class GrantConsentHandler implements ICommandHandler<GrantConsentCommand, GrantConsentResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(BANKING_CALENDAR) private readonly calendar: BankingCalendar,
    private readonly protection: IdentifierProtection,
    private readonly profiles: ProfileCatalog,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ interactionId, request, requestSha256 }: GrantConsentCommand): Promise<GrantConsentResult> {
    const deps = { store: this.store, protection: this.protection, profiles: this.profiles, blobs: this.blobs, calendar: this.calendar };
    const result = await grantConsent(deps, interactionId, request, requestSha256, requestCommandContext(this.clock));
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
