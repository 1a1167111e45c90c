import { RecordedEvent } from '@ledger/event-store';
import { PublicIdentifier, publicIdentifier } from './customer.decider';
import { CustomerEvent } from './customer.events';

/** What the read model holds about a customer: no identifier values, hashes or ciphertext. */
export interface CustomerDocument {
  tenantId: string;
  customerId: string;
  identifiers: PublicIdentifier[];
  registeredAt: number;
}

export function customerDocumentId(tenantId: string, customerId: string): string {
  return `${tenantId}:${customerId}`;
}

const CUSTOMER_EVENT_TYPES = new Set<string>(['CustomerRegistered', 'CustomerIdentifierLinked', 'CustomerIdentifierVerificationAsserted']);

/**
 * The customers of each tenant, so that later reads (a customer's consents)
 * can tell an unknown customer (404) from one without consents, inside the
 * tenant of the key.
 */
export const customersProjection = {
  name: 'customers',
  // 2: ids and index values stored with their UUIDs compacted (decision 0081).
  version: 2,
  route(event: RecordedEvent): string[] {
    if (!CUSTOMER_EVENT_TYPES.has(event.type) || !event.metadata.tenantId) return [];
    return [customerDocumentId(event.metadata.tenantId, (event.data as { customerId: string }).customerId)];
  },
  evolve(document: CustomerDocument | null, recorded: RecordedEvent): CustomerDocument | null {
    const event = recorded as unknown as CustomerEvent;
    switch (event.type) {
      case 'CustomerRegistered':
        return {
          tenantId: recorded.metadata.tenantId!,
          customerId: event.data.customerId,
          identifiers: event.data.identifiers.map(publicIdentifier),
          registeredAt: event.data.registeredAt,
        };
      case 'CustomerIdentifierLinked':
        return document && { ...document, identifiers: [...document.identifiers, publicIdentifier(event.data.identifier)] };
      case 'CustomerIdentifierVerificationAsserted':
        return (
          document && {
            ...document,
            identifiers: document.identifiers.map((i) =>
              i.system === event.data.system && i.type === event.data.type ? { ...i, verificationState: 'asserted' as const } : i,
            ),
          }
        );
      default:
        return document;
    }
  },
};
