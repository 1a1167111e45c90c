import { ReadModel, cursorBeforeSortKey } from '@ledger/projections';
import { ConsentDocument, CONSENTS_PROJECTION, OBLIGATIONS_NOT_ANSWERED_INDEX } from '../consent/consents.projection';
import { readIndexPage } from '../read-index-page';
import { lookupOf, readConsentsOf } from './obligation-lookup';
import { ObligationDocument, OBLIGATIONS_PROJECTION, RECONCILIATION_INDEX, bindingsOf, obligationDocumentIdOfKey } from './obligations.projection';

/** An obligation the bank must stop reporting and reconcile (docs/reference/operator-lists.md, "Obligations to reconcile"). */
export interface ObligationToReconcile {
  sourceSystem: string;
  obligationReference: string;
  result: 'unresolved' | 'ambiguous';
  /** The consents the ledger relates to it: those its bindings in force name, and those it superseded an obligation of. */
  redecConsentIds: string[];
}

/**
 * One page of the tenant's obligations whose consent-code lookup is
 * `unresolved` or `ambiguous` (docs/reference/operator-lists.md, "Obligations
 * to reconcile"): an obligation whose bindings were all annulled, one named as
 * a superseding obligation and not bound since, one bound in disagreement, and
 * one whose binding or extension a later fact of its consent took away (a
 * back-dated revocation reported after it, decision 0054).
 *
 * Two indexes, both sorted by the obligation's key, name the obligations to
 * look at: those whose own facts leave them unresolved or ambiguous, and
 * those some consent's facts no longer answer for. Each page merges them
 * and reads every candidate's lookup exactly, as the lookup route does, so a
 * page may hold fewer than `limit` items; only a null `nextCursor` ends the
 * list. The order is stable (by the obligation's key) and means nothing
 * else.
 */
export async function listObligationsToReconcile(
  readModel: ReadModel,
  tenantId: string,
  page: { limit: number; cursor: string | null },
): Promise<{ items: ObligationToReconcile[]; nextCursor: string | null }> {
  const window = { after: page.cursor, limit: page.limit };
  const [own, notAnswered] = await Promise.all([
    readIndexPage<ObligationDocument>(readModel, OBLIGATIONS_PROJECTION, RECONCILIATION_INDEX, tenantId, window),
    readIndexPage<ConsentDocument>(readModel, CONSENTS_PROJECTION, OBLIGATIONS_NOT_ANSWERED_INDEX, tenantId, window),
  ]);
  // A key is complete once neither index can list it on a later page: up to the last key of each page that is not the index's last.
  const lastKey = (entries: Array<{ sortKey: string | null }>) => entries[entries.length - 1]?.sortKey ?? '';
  const bounds = [own, notAnswered].filter((p) => p.nextCursor !== null).map((p) => lastKey(p.entries));
  const bound = bounds.length === 0 ? null : bounds.reduce((a, b) => (a < b ? a : b));
  const keys = [...new Set([...own.entries, ...notAnswered.entries].map((e) => e.sortKey!))].sort().filter((key) => bound === null || key <= bound).slice(0, page.limit);

  const documents = new Map(own.entries.map((e) => [e.sortKey!, e.document]));
  // Each candidate is read as the lookup route reads it, all at once.
  const candidates = await Promise.all(
    keys.map(async (key): Promise<ObligationToReconcile | null> => {
      const document = documents.get(key) ?? (await readModel.getDocument<ObligationDocument>(OBLIGATIONS_PROJECTION, obligationDocumentIdOfKey(tenantId, key)));
      if (!document) return null;
      const { result } = lookupOf(document, await readConsentsOf(readModel, tenantId, document));
      if (result !== 'unresolved' && result !== 'ambiguous') return null;
      const consents = [...bindingsOf(document).map((b) => b.redecConsentId), ...document.supersededExtensions.map((s) => s.redecConsentId)];
      const { sourceSystem, obligationReference } = document;
      return { sourceSystem, obligationReference, result, redecConsentIds: [...new Set(consents.filter((id): id is string => id !== null))] };
    }),
  );
  const items = candidates.filter((item): item is ObligationToReconcile => item !== null);
  const exhausted = bound === null && keys.length === new Set([...own.entries, ...notAnswered.entries].map((e) => e.sortKey)).size;
  // Just past the last key read: every entry of that key in either index sorts before it.
  return { items, nextCursor: exhausted || keys.length === 0 ? null : cursorBeforeSortKey(`${keys[keys.length - 1]} `) };
}
