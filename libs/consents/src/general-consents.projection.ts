import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, IndexEntry, ReadModel } from '@ledger/projections';
import { GeneralConsentState, evolveGeneralConsent } from './general-consent.decider';
import { GENERAL_CONSENT_EVENT_TYPES, GeneralConsentEvent } from './general-consent.events';

export const GENERAL_CONSENTS_PROJECTION = 'general-consents';
const BY_CUSTOMER = 'customer';

const documentId = (tenantId: string, consentId: string) => `${tenantId}:${consentId}`;
const customerIndexValue = (tenantId: string, customerId: string) => `${tenantId}:${customerId}`;

/** The general consents of every tenant, one document per consent, findable by customer. */
export const generalConsentsProjection: DocumentProjection<GeneralConsentState> = {
  name: GENERAL_CONSENTS_PROJECTION,
  // 2: indexes are sorted sets (decision 0021). 3: ids and index values stored with their UUIDs compacted (decision 0081).
  version: 3,
  route(event: RecordedEvent): string[] {
    if (!GENERAL_CONSENT_EVENT_TYPES.has(event.type) || !event.metadata.tenantId) return [];
    return [documentId(event.metadata.tenantId, (event.data as { consentId: string }).consentId)];
  },
  evolve(state: GeneralConsentState | null, event: RecordedEvent): GeneralConsentState | null {
    return evolveGeneralConsent(state, event as unknown as GeneralConsentEvent, event.metadata.tenantId!);
  },
  indexes(state: GeneralConsentState): IndexEntry[] {
    return [{ index: BY_CUSTOMER, value: customerIndexValue(state.tenantId, state.grant.customerId) }];
  },
};

/** The consent, or null when the tenant has none with this id (another tenant's id included). */
export function readGeneralConsent(readModel: ReadModel, tenantId: string, consentId: string): Promise<GeneralConsentState | null> {
  return readModel.getDocument<GeneralConsentState>(GENERAL_CONSENTS_PROJECTION, documentId(tenantId, consentId));
}

export function readCustomerGeneralConsents(readModel: ReadModel, tenantId: string, customerId: string): Promise<GeneralConsentState[]> {
  return readModel.findByIndex<GeneralConsentState>(GENERAL_CONSENTS_PROJECTION, BY_CUSTOMER, customerIndexValue(tenantId, customerId));
}
