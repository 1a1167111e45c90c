import { hash } from 'node:crypto';
import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, ReadModel } from '@ledger/projections';

/**
 * One stream outside a consent's own that holds facts about it; listed under
 * the consent in the `consent` index, in the order the stream first named it.
 */
export interface ConsentReference {
  streamId: string;
}

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

/** The consent's entry in the index. */
const consentKey = (tenantId: string, redecConsentId: string) => `${tenantId}:${redecConsentId}`;
const CONSENT_INDEX = 'consent';
/**
 * The document of one (consent, stream), under its tenant: the rest of its
 * id is 96 bits of a hash of the two, not the two themselves, so that its
 * entry in the consent's index (a position, the id) stays within the 64
 * bytes of Redis's compact encoding of a small sorted set (decision 0081).
 */
export function consentReferenceId(tenantId: string, redecConsentId: string, streamId: string): string {
  return `${tenantId}:${hash('sha256', `${redecConsentId}\n${streamId}`, 'base64url').slice(0, 16)}`;
}

/** Sort keys are compared as text: positions are zero-padded to the width of the largest safe integer. */
const POSITION_WIDTH = String(Number.MAX_SAFE_INTEGER).length;

/**
 * An index for audit replay: which streams to read besides the consent's.
 * It only says where to look; what is shown is read from the store itself.
 * One small document per (consent, stream), found through the consent's
 * index entry: a consent authorized thousands of times gets one more entry
 * per access instead of a document that grows, and is rewritten whole, with
 * every access (version 2 kept every stream in one document per consent).
 */
export const consentReferencesProjection: DocumentProjection<ConsentReference & { consent: string; firstPosition: number }> = {
  name: NAME,
  // 4: ids and index values stored with their UUIDs compacted; 5: ids a hash of the consent and the stream (decision 0081).
  version: 5,
  route(event: RecordedEvent): string[] {
    const redecConsentId = referencedConsent(event);
    const { tenantId } = event.metadata;
    return redecConsentId && tenantId ? [consentReferenceId(tenantId, redecConsentId, event.streamId)] : [];
  },
  evolve(document, event) {
    if (document) return document;
    return { streamId: event.streamId, consent: consentKey(event.metadata.tenantId as string, referencedConsent(event) as string), firstPosition: event.position };
  },
  indexes: (document) => [{ index: CONSENT_INDEX, value: document.consent, sortKey: String(document.firstPosition).padStart(POSITION_WIDTH, '0') }],
};

export async function readConsentReferences(readModel: ReadModel, tenantId: string, redecConsentId: string): Promise<string[]> {
  return (await readModel.findByIndex<ConsentReference>(NAME, CONSENT_INDEX, consentKey(tenantId, redecConsentId))).map((reference) => reference.streamId);
}

export { referencedConsent };
