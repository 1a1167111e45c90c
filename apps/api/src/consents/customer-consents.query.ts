import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CustomerDocument, customerDocumentId, customersProjection } from '@ledger/ledger';
import { CLOCK, Clock, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { regulatoryRepresentation } from '@ledger/redec';
import { consentIndexes, findConsents } from '../consent-reads';

export class CustomerConsentsQuery {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
  ) {}
}

/** One consent of a customer: what it is (kind, template, version) beside its regulatory representation. */
export type CustomerConsent = ReturnType<typeof regulatoryRepresentation> & { kind: 'redec'; templateKey: string; configurationVersion: number };

@QueryHandler(CustomerConsentsQuery)
export class CustomerConsentsHandler implements IQueryHandler<CustomerConsentsQuery, { consents: CustomerConsent[] }> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, customerId }: CustomerConsentsQuery): Promise<{ consents: CustomerConsent[] }> {
    const customer = await this.readModel.getDocument<CustomerDocument>(customersProjection.name, customerDocumentId(tenantId, customerId));
    if (!customer) throw notFound('customer');
    const now = this.clock.now();
    const consents = await findConsents(this.readModel, consentIndexes.customer(tenantId, customerId));
    return {
      consents: consents
        .map((consent) => ({
          kind: 'redec' as const,
          templateKey: consent.grant.templateKey,
          configurationVersion: consent.grant.configurationVersion,
          ...regulatoryRepresentation(consent, now),
        }))
        .sort((a, b) => a.grantedAt - b.grantedAt),
    };
  }
}
