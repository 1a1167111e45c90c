import type { RecordedEvent } from '@ledger/event-store';
import type { AccessDecided } from '../access/access.events';
import { AuthorizationSpan, CONTRADICTED_AUTHORIZATIONS_INDEX, contradictsAuthorizations, withAuthorization } from '../access/authorization-spans';
import type { ObligationBinding, ObligationEvent } from '../obligation/obligation.events';
import { obligationKey } from '../obligation/obligation-key';
import { CONSENT_EVENT_TYPES, ConsentEvent } from './consent.events';
import { CONSENT_DOCUMENT_DICTIONARY } from './consent-document-dictionary';
import { ConsentState, evolveConsent } from './consent.state';
import { bindingStands, extensionIneffectiveReason } from './enablement';
import { NOTIFICATION_DUE_INDEX, notificationDueSortKey, pendingNotificationDuties } from './notification-duties';
import { instantSortKey } from '../read-index-page';

export const CONSENTS_PROJECTION = 'redec-consents';

export function consentDocumentId(tenantId: string, redecConsentId: string): string {
  return `${tenantId}:${redecConsentId}`;
}

/** Exact lookups: by internal code (GET /v1/redec/consents; docs/reference/regulatory-representation.md, "Lookup by code or credit operation") and by customer. */
export const consentIndexes = {
  internalConsentCode: (tenantId: string, code: string) => ({ index: 'internalConsentCode', value: `${tenantId}:${code}` }),
  customer: (tenantId: string, customerId: string) => ({ index: 'customer', value: `${tenantId}:${customerId}` }),
  /** Filled by the credit extensions a consent carries (docs/reference/credit-extensions.md). */
  creditOperationReference: (tenantId: string, reference: string) => ({ index: 'creditOperationReference', value: `${tenantId}:${reference}` }),
};

/** A binding of an obligation to this consent, as far as the consent's document follows it. */
export type ConsentBinding = Pick<ObligationBinding, 'bindingId' | 'sourceSystem' | 'obligationReference' | 'obligationGrantedAt'>;

/**
 * A consent's read-model document: its folded state, when its last fact was
 * recorded, and what other streams record about it, so that its facts can
 * say what they take back: the bindings in force that name it (recorded in
 * the obligations' streams), which its facts may no longer answer for, and
 * the spans of the authorized decisions that named it (the accesses'
 * streams), which a fact reported later may contradict (decisions 0054 and
 * 0056).
 */
export type ConsentDocument = ConsentState & { updatedAt: number; obligationBindings: ConsentBinding[]; authorizationSpans: AuthorizationSpan[] };

/**
 * The consents some of whose obligations' lookups their facts took the
 * consent's code from (decision 0054): a binding that no longer stands, an
 * extension that keeps nothing. One entry per such obligation, sorted by the
 * obligation's key: the other half of the reconciliation list.
 */
export const OBLIGATIONS_NOT_ANSWERED_INDEX = 'obligations-not-answered';

/** Every consent of a tenant, by when its last fact was recorded: the auditors' export (GET /v1/redec/consent-exports, `ledger export consents`). */
export const CONSENTS_BY_UPDATE_INDEX = 'updatedAt';

/** The REDEC consents of every tenant, one document per consent with its folded state. */
export const consentsProjection = {
  name: CONSENTS_PROJECTION,
  // 3: indexes are sorted sets (decision 0021); 4: the index of pending notification duties (decision 0023); 5: updatedAt and its index (decision 0034);
  // 6: the bindings that name the consent, the obligations it no longer answers for, and the authorizations its facts contradict (decisions 0054 and 0056).
  // 7: ids and index values stored with their UUIDs compacted (decision 0081); 8: documents deflated with CONSENT_DOCUMENT_DICTIONARY (decision 0084).
  version: 8,
  compression: { dictionary: CONSENT_DOCUMENT_DICTIONARY },
  route(event: RecordedEvent): string[] {
    const { tenantId } = event.metadata;
    if (!tenantId) return [];
    if (CONSENT_EVENT_TYPES.has(event.type)) return [consentDocumentId(tenantId, (event.data as { redecConsentId: string }).redecConsentId)];
    if (event.type === 'ObligationBound' || event.type === 'ObligationBindingAnnulled') {
      const { redecConsentId } = (event as unknown as ObligationEvent).data;
      return redecConsentId ? [consentDocumentId(tenantId, redecConsentId)] : [];
    }
    if (event.type === 'AccessDecided') {
      const { redecConsentId, status } = (event as unknown as AccessDecided).data;
      return status === 'authorized' ? [consentDocumentId(tenantId, redecConsentId)] : [];
    }
    return [];
  },
  evolve(state: ConsentDocument | null, event: RecordedEvent): ConsentDocument | null {
    const fact = event as unknown as ConsentEvent | ObligationEvent | AccessDecided;
    switch (fact.type) {
      case 'AccessDecided':
        return state && { ...state, authorizationSpans: withAuthorization(state.authorizationSpans, fact.data) };
      case 'ObligationBound': {
        const { bindingId, sourceSystem, obligationReference, obligationGrantedAt } = fact.data;
        return state && { ...state, obligationBindings: [...state.obligationBindings, { bindingId, sourceSystem, obligationReference, obligationGrantedAt }] };
      }
      case 'ObligationBindingAnnulled':
        return state && { ...state, obligationBindings: state.obligationBindings.filter((b) => b.bindingId !== fact.data.bindingId) };
      default: {
        const next = evolveConsent(state, fact, event.metadata.tenantId!);
        return next && { ...next, updatedAt: event.metadata.recordedAt, obligationBindings: state?.obligationBindings ?? [], authorizationSpans: state?.authorizationSpans ?? [] };
      }
    }
  },
  indexes(state: ConsentDocument) {
    return [
      { index: CONSENTS_BY_UPDATE_INDEX, value: state.tenantId, sortKey: instantSortKey(state.updatedAt) },
      consentIndexes.internalConsentCode(state.tenantId, state.grant.internalConsentCode),
      consentIndexes.customer(state.tenantId, state.grant.customerId),
      ...state.creditExtensions.map((e) => consentIndexes.creditOperationReference(state.tenantId, e.creditOperationReference)),
      // The notices the bank still owes, oldest first: the overdue list reads them (listOverdueNotifications).
      ...pendingNotificationDuties(state).map((duty) => ({ index: NOTIFICATION_DUE_INDEX, value: state.tenantId, sortKey: notificationDueSortKey(duty) })),
      ...obligationsNotAnswered(state).map((key) => ({ index: OBLIGATIONS_NOT_ANSWERED_INDEX, value: state.tenantId, sortKey: key })),
      ...(contradictsAuthorizations(state, state.authorizationSpans)
        ? [{ index: CONTRADICTED_AUTHORIZATIONS_INDEX, value: state.tenantId, sortKey: state.grant.redecConsentId }]
        : []),
    ];
  },
};

/** The keys of the obligations bound to or extended by this consent that its facts no longer give its code to. */
function obligationsNotAnswered(state: ConsentDocument): string[] {
  const { obligationSourceSystem } = state.grant;
  const extensions = state.creditExtensions.filter((e) => extensionIneffectiveReason(state, e) !== null).map((e) => obligationKey(obligationSourceSystem, e.creditOperationReference));
  const bindings = state.obligationBindings.filter((b) => !bindingStands(state, b, b.obligationGrantedAt)).map((b) => obligationKey(b.sourceSystem, b.obligationReference));
  return [...new Set([...extensions, ...bindings])];
}
