import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, ReadModel } from '@ledger/projections';

/** The streams outside a consent's own that hold facts about it: its accesses and its obligations' bindings. */
export interface ConsentReferences {
  streams: string[];
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

const documentId = (tenantId: string, redecConsentId: string) => `${tenantId}:${redecConsentId}`;

/**
 * An index for audit replay: which streams to read besides the consent's.
 * It only says where to look; what is shown is read from the store itself.
 */
export const consentReferencesProjection: DocumentProjection<ConsentReferences> = {
  name: NAME,
  version: 2,
  route(event: RecordedEvent): string[] {
    const redecConsentId = referencedConsent(event);
    const { tenantId } = event.metadata;
    return redecConsentId && tenantId ? [documentId(tenantId, redecConsentId)] : [];
  },
  evolve(document: ConsentReferences | null, event: RecordedEvent): ConsentReferences {
    const streams = document?.streams ?? [];
    return streams.includes(event.streamId) ? { streams } : { streams: [...streams, event.streamId] };
  },
};

export async function readConsentReferences(readModel: ReadModel, tenantId: string, redecConsentId: string): Promise<string[]> {
  return (await readModel.getDocument<ConsentReferences>(NAME, documentId(tenantId, redecConsentId)))?.streams ?? [];
}

export { referencedConsent };
