import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { RegulatoryRepresentation, regulatoryRepresentation } from '@ledger/redec';
import { consentIndexes, findConsents } from '../consent-reads';

export type ConsentLookup = { internalConsentCode: string } | { creditOperationReference: string };

export class LookupConsentsQuery {
  constructor(
    readonly tenantId: string,
    readonly lookup: ConsentLookup,
  ) {}
}

@QueryHandler(LookupConsentsQuery)
export class LookupConsentsHandler implements IQueryHandler<LookupConsentsQuery, { consents: RegulatoryRepresentation[] }> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Exact lookups inside the tenant: an unknown value, or one of another tenant, finds nothing. */
  async execute({ tenantId, lookup }: LookupConsentsQuery): Promise<{ consents: RegulatoryRepresentation[] }> {
    const index =
      'internalConsentCode' in lookup
        ? consentIndexes.internalConsentCode(tenantId, lookup.internalConsentCode)
        : consentIndexes.creditOperationReference(tenantId, lookup.creditOperationReference);
    const now = this.clock.now();
    return { consents: (await findConsents(this.readModel, index)).map((consent) => regulatoryRepresentation(consent, now)) };
  }
}
