import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, ReadModel } from '@ledger/projections';
import { CreditExtensionRegistered } from '../consent/consent.events';
import { ObligationBinding, ObligationBound } from './obligation.events';
import { obligationKey } from './obligation-key';

/** Every binding of one reportable obligation of a tenant. */
export interface ObligationDocument {
  tenantId: string;
  sourceSystem: string;
  obligationReference: string;
  /** In the order recorded; more than one that disagree make the lookup `ambiguous`. */
  bindings: ObligationBinding[];
}

export const OBLIGATIONS_PROJECTION = 'redec-obligations';

export function obligationDocumentId(tenantId: string, sourceSystem: string, obligationReference: string): string {
  return `${tenantId}:${obligationKey(sourceSystem, obligationReference)}`;
}

/**
 * The binding a fact records: an explicit one, or (spec 2.11) the one a
 * credit extension produces for the exact obligation it arose from, which
 * lives in the consent's stream and is the same relation.
 */
function bindingOf(event: RecordedEvent): ObligationBinding | null {
  const fact = event as unknown as ObligationBound | CreditExtensionRegistered;
  switch (fact.type) {
    case 'ObligationBound':
      return fact.data;
    case 'CreditExtensionRegistered': {
      const { creditExtensionId, obligationSourceSystem, creditOperationReference, redecConsentId, internalConsentCode, extendedAt } = fact.data;
      return {
        bindingId: creditExtensionId,
        sourceSystem: obligationSourceSystem,
        obligationReference: creditOperationReference,
        kind: 'consent',
        redecConsentId,
        internalConsentCode,
        boundAt: extendedAt,
      };
    }
    default:
      return null;
  }
}

/** The bindings of every obligation, one document per tenant, source system and obligation reference: what the consent-code lookup reads. */
export const obligationsProjection: DocumentProjection<ObligationDocument> = {
  name: OBLIGATIONS_PROJECTION,
  version: 1,
  route(event: RecordedEvent): string[] {
    const binding = bindingOf(event);
    const { tenantId } = event.metadata;
    if (!binding || !tenantId) return [];
    return [obligationDocumentId(tenantId, binding.sourceSystem, binding.obligationReference)];
  },
  evolve(document: ObligationDocument | null, event: RecordedEvent): ObligationDocument | null {
    const binding = bindingOf(event);
    if (!binding) return document;
    const { sourceSystem, obligationReference } = binding;
    const bound = document ?? { tenantId: event.metadata.tenantId!, sourceSystem, obligationReference, bindings: [] };
    return { ...bound, bindings: [...bound.bindings, binding] };
  },
};

/** The obligation's bindings in the tenant; none when it has none (another tenant's included). */
export async function readObligationBindings(readModel: ReadModel, tenantId: string, sourceSystem: string, obligationReference: string): Promise<ObligationBinding[]> {
  const document = await readModel.getDocument<ObligationDocument>(OBLIGATIONS_PROJECTION, obligationDocumentId(tenantId, sourceSystem, obligationReference));
  return document?.bindings ?? [];
}
