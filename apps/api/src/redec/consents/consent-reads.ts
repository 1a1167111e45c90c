import { ReadModel } from '@ledger/projections';
import { ConsentState, consentDocumentId, consentIndexes, consentsProjection } from '@ledger/redec';

/** The consents read model, inside the tenant: an id of another tenant is simply not found. */
export function readConsent(readModel: ReadModel, tenantId: string, redecConsentId: string): Promise<ConsentState | null> {
  return readModel.getDocument<ConsentState>(consentsProjection.name, consentDocumentId(tenantId, redecConsentId));
}

export function findConsents(readModel: ReadModel, lookup: { index: string; value: string }): Promise<ConsentState[]> {
  return readModel.findByIndex<ConsentState>(consentsProjection.name, lookup.index, lookup.value);
}

export { consentIndexes };
