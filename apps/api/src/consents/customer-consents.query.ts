import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { readCustomerGeneralConsents } from '@ledger/consents';
import { CustomerDocument, customerDocumentId, customersProjection } from '@ledger/ledger';
import { CLOCK, Clock, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { ConsentState, regulatoryRepresentation } from '@ledger/redec';
import { consentIndexes, findConsents } from '../redec/consents/consent-reads';
import { GeneralConsentDto, generalConsentView } from './general-consent.dto';

/** One REDEC consent of a customer: what it is (kind, template, version) beside its regulatory representation. */
export type CustomerRedecConsent = ReturnType<typeof regulatoryRepresentation> & { kind: 'redec'; templateKey: string; configurationVersion: number };
export type CustomerConsent = CustomerRedecConsent | GeneralConsentDto;

/** Both kinds of a customer's consents, as their facts stand: what the list and compliance read. */
export interface CustomerConsentStates {
  redec: ConsentState[];
  general: Awaited<ReturnType<typeof readCustomerGeneralConsents>>;
}

/** The customer's consents of both kinds, or 404 when the tenant has no such customer (another tenant's included). */
export async function readCustomerConsents(readModel: ReadModel, tenantId: string, customerId: string): Promise<CustomerConsentStates> {
  const customer = await readModel.getDocument<CustomerDocument>(customersProjection.name, customerDocumentId(tenantId, customerId));
  if (!customer) throw notFound('customer');
  const [redec, general] = await Promise.all([
    findConsents(readModel, consentIndexes.customer(tenantId, customerId)),
    readCustomerGeneralConsents(readModel, tenantId, customerId),
  ]);
  return { redec, general };
}

export class CustomerConsentsQuery {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
  ) {}
}

@QueryHandler(CustomerConsentsQuery)
export class CustomerConsentsHandler implements IQueryHandler<CustomerConsentsQuery, { consents: CustomerConsent[] }> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, customerId }: CustomerConsentsQuery): Promise<{ consents: CustomerConsent[] }> {
    const { redec, general } = await readCustomerConsents(this.readModel, tenantId, customerId);
    const now = this.clock.now();
    const consents: CustomerConsent[] = [
      ...redec.map((consent) => ({
        kind: 'redec' as const,
        templateKey: consent.grant.templateKey,
        configurationVersion: consent.grant.configurationVersion,
        ...regulatoryRepresentation(consent, now),
      })),
      ...general.map(generalConsentView),
    ];
    return { consents: consents.sort((a, b) => a.grantedAt - b.grantedAt) };
  }
}
