import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock, notFound } from '@ledger/platform';
import { ReadModel, fromModelOrLedger } from '@ledger/projections';
import { ConsentState, RegulatoryRepresentation, loadConsent, regulatoryRepresentation } from '@ledger/redec';
import { readConsent } from '../consent-reads';

export class GetConsentQuery {
  constructor(
    readonly tenantId: string,
    readonly redecConsentId: string,
  ) {}
}

@QueryHandler(GetConsentQuery)
export class GetConsentHandler implements IQueryHandler<GetConsentQuery, RegulatoryRepresentation> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, redecConsentId }: GetConsentQuery): Promise<RegulatoryRepresentation> {
    const consent = await this.consent(tenantId, redecConsentId);
    if (!consent) throw notFound('consent');
    return regulatoryRepresentation(consent, this.clock.now());
  }

  /** From the read model; while it is rebuilt after a loss, from the consent's own stream, which says the same (decision 0078). */
  private consent(tenantId: string, redecConsentId: string): Promise<ConsentState | null> {
    return fromModelOrLedger(
      () => readConsent(this.readModel, tenantId, redecConsentId),
      () => loadConsent(this.store, tenantId, redecConsentId),
    );
  }
}
