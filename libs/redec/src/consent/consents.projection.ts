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

/** A consent's read-model document: its folded state, and when its last fact was recorded. */
export type ConsentDocument = ConsentState & { updatedAt: number };

/** Every consent of a tenant, by when its last fact was recorded: the auditors' export (GET /v1/redec/consent-exports, `ledger export consents`). */
export const CONSENTS_BY_UPDATE_INDEX = 'updatedAt';

/** Epoch ms zero-padded to a fixed width, so byte order is time order (decision 0021). */
export function updatedAtSortKey(updatedAt: number): string {
  return String(updatedAt).padStart(15, '0');
}

/** The REDEC consents of every tenant, one document per consent with its folded state. */
export const consentsProjection = {
  name: CONSENTS_PROJECTION,
  // 3: indexes are sorted sets (decision 0021); 4: the index of pending notification duties (decision 0023); 5: updatedAt and its index (decision 0034).
  version: 5,
  route(event: RecordedEvent): string[] {
    if (!CONSENT_EVENT_TYPES.has(event.type) || !event.metadata.tenantId) return [];
    return [consentDocumentId(event.metadata.tenantId, (event.data as { redecConsentId: string }).redecConsentId)];
  },
  evolve(state: ConsentDocument | null, event: RecordedEvent): ConsentDocument | null {
    const next = evolveConsent(state, event as unknown as ConsentEvent, event.metadata.tenantId!);
    return next && { ...next, updatedAt: event.metadata.recordedAt };
  },
  indexes(state: ConsentDocument) {
    return [
      { index: CONSENTS_BY_UPDATE_INDEX, value: state.tenantId, sortKey: updatedAtSortKey(state.updatedAt) },
      consentIndexes.internalConsentCode(state.tenantId, state.grant.internalConsentCode),
      consentIndexes.customer(state.tenantId, state.grant.customerId),
      ...state.creditExtensions.map((e) => consentIndexes.creditOperationReference(state.tenantId, e.creditOperationReference)),
      // The notices the bank still owes, oldest first: the overdue list reads them (listOverdueNotifications).
      ...pendingNotificationDuties(state).map((duty) => ({ index: NOTIFICATION_DUE_INDEX, value: state.tenantId, sortKey: notificationDueSortKey(duty) })),
    ];
  },
};
