import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { RegulatoryRepresentation, regulatoryRepresentation } from '@ledger/redec';
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
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, redecConsentId }: GetConsentQuery): Promise<RegulatoryRepresentation> {
    const consent = await readConsent(this.readModel, tenantId, redecConsentId);
    if (!consent) throw notFound('consent');
    return regulatoryRepresentation(consent, this.clock.now());
  }
}
