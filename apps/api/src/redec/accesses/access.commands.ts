import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { AccessOutcome, AccessRecord, AccessRequest, AuthorizeResult, authorizeAccess, confirmAccess } from '@ledger/redec';
import { requestCommandContext } from '../../request-command-context';

export class AuthorizeAccessCommand {
  constructor(readonly request: AccessRequest) {}
}

export class ConfirmAccessCommand {
  constructor(
    readonly redecAccessId: string,
    readonly outcome: AccessOutcome,
  ) {}
}

/** No read-your-writes wait: nothing the API reads is projected from access facts, and authorize is the hot path. */
@CommandHandler(AuthorizeAccessCommand)
export class AuthorizeAccessHandler implements ICommandHandler<AuthorizeAccessCommand, AuthorizeResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ request }: AuthorizeAccessCommand): Promise<AuthorizeResult> {
    return authorizeAccess(this.store, request, requestCommandContext(this.clock));
  }
}

@CommandHandler(ConfirmAccessCommand)
export class ConfirmAccessHandler implements ICommandHandler<ConfirmAccessCommand, AccessRecord> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ redecAccessId, outcome }: ConfirmAccessCommand): Promise<AccessRecord> {
    return (await confirmAccess(this.store, redecAccessId, outcome, requestCommandContext(this.clock))).record;
  }
}
