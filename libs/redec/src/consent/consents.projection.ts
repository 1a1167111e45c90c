import type { RecordedEvent } from '@ledger/event-store';
import { CONSENT_EVENT_TYPES, ConsentEvent } from './consent.events';
import { ConsentState, evolveConsent } from './consent.state';
import { NOTIFICATION_DUE_INDEX, notificationDueSortKey, pendingNotificationDuties } from './notification-duties';

export const CONSENTS_PROJECTION = 'redec-consents';

export function consentDocumentId(tenantId: string, redecConsentId: string): string {
  return `${tenantId}:${redecConsentId}`;
}

/** Exact lookups of spec 4: by internal code (GET /v1/redec/consents) and by customer. */
export const consentIndexes = {
  internalConsentCode: (tenantId: string, code: string) => ({ index: 'internalConsentCode', value: `${tenantId}:${code}` }),
  customer: (tenantId: string, customerId: string) => ({ index: 'customer', value: `${tenantId}:${customerId}` }),
  /** Filled by the credit extensions a consent carries (spec 2.10). */
  creditOperationReference: (tenantId: string, reference: string) => ({ index: 'creditOperationReference', value: `${tenantId}:${reference}` }),
};

/** The REDEC consents of every tenant, one document per consent with its folded state. */
export const consentsProjection = {
  name: CONSENTS_PROJECTION,
  // 3: indexes are sorted sets (decision 0021); 4: the index of pending notification duties (decision 0023).
  version: 4,
  route(event: RecordedEvent): string[] {
    if (!CONSENT_EVENT_TYPES.has(event.type) || !event.metadata.tenantId) return [];
    return [consentDocumentId(event.metadata.tenantId, (event.data as { redecConsentId: string }).redecConsentId)];
  },
  evolve(state: ConsentState | null, event: RecordedEvent): ConsentState | null {
    return evolveConsent(state, event as unknown as ConsentEvent, event.metadata.tenantId!);
  },
  indexes(state: ConsentState) {
    return [
      consentIndexes.internalConsentCode(state.tenantId, state.grant.internalConsentCode),
      consentIndexes.customer(state.tenantId, state.grant.customerId),
      ...state.creditExtensions.map((e) => consentIndexes.creditOperationReference(state.tenantId, e.creditOperationReference)),
      // The notices the bank still owes, oldest first: the overdue list reads them (listOverdueNotifications).
      ...pendingNotificationDuties(state).map((duty) => ({ index: NOTIFICATION_DUE_INDEX, value: state.tenantId, sortKey: notificationDueSortKey(duty) })),
    ];
  },
};
