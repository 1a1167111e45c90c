import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { ConsentHistory, consentHistory, readConsentReferences } from '@ledger/redec';

/** A consent's recorded history, for the API's auditors and the console's (scope consent:audit); `at`, a past instant to stand at. */
export class ConsentHistoryQuery {
  constructor(
    readonly tenantId: string,
    readonly redecConsentId: string,
    readonly at?: number,
  ) {}
}

@QueryHandler(ConsentHistoryQuery)
export class ConsentHistoryHandler implements IQueryHandler<ConsentHistoryQuery, ConsentHistory> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readModel: ReadModel,
  ) {}

  async execute({ tenantId, redecConsentId, at }: ConsentHistoryQuery): Promise<ConsentHistory> {
    // Its accesses and bindings are found through the read model; their facts are read from the store.
    const references = await readConsentReferences(this.readModel, tenantId, redecConsentId);
    const history = await consentHistory(this.store, tenantId, redecConsentId, references, { at, now: this.clock.now() });
    if (!history) throw notFound('consent');
    return history;
  }
}
