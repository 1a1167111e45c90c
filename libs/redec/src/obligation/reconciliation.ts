import type { ReadModel } from '@ledger/projections';
import { readIndexPage } from '../read-index-page';
import { ObligationDocument, OBLIGATIONS_PROJECTION, RECONCILIATION_INDEX, bindingsOf, lookupOf } from './obligations.projection';

/** An obligation the bank must stop reporting and reconcile (spec 2.11). */
export interface ObligationToReconcile {
  sourceSystem: string;
  obligationReference: string;
  result: 'unresolved' | 'ambiguous';
  /** The consents the ledger relates to it: those its bindings in force name, and those it superseded an obligation of. */
  redecConsentIds: string[];
}

/**
 * One page of the tenant's obligations whose consent-code lookup is
 * `unresolved` or `ambiguous`, for the bindings and extensions the ledger
 * knows: an obligation whose bindings were all annulled, one named as a
 * superseding obligation and not bound since, one bound in disagreement.
 * The order is stable (by the obligation's key) and means nothing else.
 */
export async function listObligationsToReconcile(
  readModel: ReadModel,
  tenantId: string,
  page: { limit: number; cursor: string | null },
): Promise<{ items: ObligationToReconcile[]; nextCursor: string | null }> {
  const { entries, nextCursor } = await readIndexPage<ObligationDocument>(readModel, OBLIGATIONS_PROJECTION, RECONCILIATION_INDEX, tenantId, { after: page.cursor, limit: page.limit });
  const items = entries.map(({ document }): ObligationToReconcile => {
    const consents = [...bindingsOf(document).map((b) => b.redecConsentId), ...document.supersededExtensions.map((s) => s.redecConsentId)];
    const { sourceSystem, obligationReference } = document;
    const result = lookupOf(document).result as ObligationToReconcile['result'];
    return { sourceSystem, obligationReference, result, redecConsentIds: [...new Set(consents.filter((id): id is string => id !== null))] };
  });
  return { items, nextCursor };
}
