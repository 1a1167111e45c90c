import type { RecordedEvent } from '@ledger/event-store';
import { groupedId, type DocumentProjection, type ReadModel } from '@ledger/projections';

const NAME = 'redec-consent-references';

/** The consent a fact of another stream is about, if any (an access decision or confirmation, a binding of kind consent or its annulment). */
function referencedConsent(event: RecordedEvent): string | null {
  switch (event.type) {
    case 'AccessDecided':
    case 'AccessConfirmed':
    case 'ObligationBound':
    case 'ObligationBindingAnnulled':
      return (event.data as { redecConsentId?: string | null }).redecConsentId ?? null;
    default:
      return null;
  }
}

/** The group of a consent's references: its tenant and id. */
const consentGroup = (tenantId: string, redecConsentId: string) => `${tenantId}:${redecConsentId}`;

/** The id of the reference of `streamId` to a consent: a field, named by the stream, of the consent's group. */
export function consentReferenceId(tenantId: string, redecConsentId: string, streamId: string): string {
  return groupedId(consentGroup(tenantId, redecConsentId), streamId);
}

/**
 * An index for audit replay: which streams to read besides the consent's.
 * It only says where to look; what is shown is read from the store itself.
 * A consent's references are one Redis hash (a grouped projection, decision
 * 0088): a field per stream that named the consent, named by the stream,
 * holding where the stream first named it. A consent authorized thousands
 * of times gets one more field per access instead of a document that grows
 * and is rewritten whole with every access (version 2 kept every stream in
 * one document per consent); and an access stream's field and its position
 * stay within the 64 bytes up to which Redis keeps a small hash as one
 * listpack: about 470 bytes of Redis per consent on a generated ledger (2.4
 * references each), against about 1,370 with a key and an index entry per
 * reference (version 5).
 */
export const consentReferencesProjection: DocumentProjection<{ firstPosition: number }> = {
  name: NAME,
  // 4: ids and index values stored with their UUIDs compacted; 5: ids a hash of the consent and the stream (decision 0081); 6: one hash per consent (decision 0088).
  version: 6,
  grouped: true,
  route(event: RecordedEvent): string[] {
    const redecConsentId = referencedConsent(event);
    const { tenantId } = event.metadata;
    return redecConsentId && tenantId ? [consentReferenceId(tenantId, redecConsentId, event.streamId)] : [];
  },
  evolve: (document, event) => document ?? { firstPosition: event.position },
};

/** The streams besides its own that hold facts about the consent, in the order they first named it. */
export async function readConsentReferences(readModel: ReadModel, tenantId: string, redecConsentId: string): Promise<string[]> {
  const references = await readModel.readGroup<{ firstPosition: number }>(NAME, consentGroup(tenantId, redecConsentId));
  return references.sort((a, b) => a.document.firstPosition - b.document.firstPosition).map(({ field }) => field);
}

export { referencedConsent };
