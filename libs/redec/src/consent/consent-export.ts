import { ReadModel, cursorBeforeSortKey } from '@ledger/projections';
import { fieldRefused } from '@ledger/platform';
import { instantSortKey, readIndexPage } from '../read-index-page';
import { CONSENTS_BY_UPDATE_INDEX, CONSENTS_PROJECTION, ConsentDocument } from './consents.projection';
import { RegulatoryRepresentation, regulatoryRepresentation } from './regulatory-representation';

/** A consent as an auditor's export shows it: the regulatory representation, and when its last fact was recorded. */
export type ExportedConsent = RegulatoryRepresentation & { updatedAt: number };

/**
 * One page of the tenant's consents in the order their last fact was
 * recorded, then by id: stable, and a consent changed while an export pages
 * moves past the cursor and is met again, never skipped. `updatedAfter`
 * starts the first page after that instant; later pages follow the cursor.
 * Status and retention are derived as of `now`.
 */
export async function exportConsents(
  readModel: ReadModel,
  tenantId: string,
  query: { updatedAfter: number | null; cursor: string | null; limit: number; now: number },
): Promise<{ items: ExportedConsent[]; nextCursor: string | null }> {
  if (query.updatedAfter !== null && query.cursor !== null) {
    throw fieldRefused('updatedAfter', 'not_with_cursor', 'updatedAfter starts an export; a cursor already says where it is.');
  }
  const after = query.cursor ?? (query.updatedAfter === null ? null : cursorBeforeSortKey(instantSortKey(query.updatedAfter + 1)));
  const page = await readIndexPage<ConsentDocument>(readModel, CONSENTS_PROJECTION, CONSENTS_BY_UPDATE_INDEX, tenantId, { after, limit: query.limit });
  return {
    items: page.entries.map(({ document }) => ({ ...regulatoryRepresentation(document, query.now), updatedAt: document.updatedAt })),
    nextCursor: page.nextCursor,
  };
}
