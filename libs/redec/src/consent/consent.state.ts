import { ArtifactOrigin, ArtifactStatus, ConsentEvent, ConsentGranted } from './consent.events';

export interface ConsentArtifact {
  origin: ArtifactOrigin;
  status: ArtifactStatus;
  mediaType: string;
  contentSha256: string | null;
  /** Known for bytes the service holds; null for a pending PDF or a resource held elsewhere. */
  size: number | null;
}

/**
 * A consent as its facts say it is. Status, validity and retention are not
 * stored: they depend on the clock and are derived at read time
 * (regulatory-representation.ts), so an expiry is visible without any job
 * having run.
 */
export interface ConsentState {
  tenantId: string;
  grant: Omit<ConsentGranted['data'], 'grantRequestSha256'>;
  artifact: ConsentArtifact;
}

export function evolveConsent(state: ConsentState | null, event: ConsentEvent, tenantId: string): ConsentState | null {
  switch (event.type) {
    case 'ConsentGranted': {
      // The request hash only serves to recognise a retry; it is not part of the consent.
      const { grantRequestSha256: _requestHash, ...grant } = event.data;
      const content = grant.evidence.kind === 'electronic' ? null : grant.evidence.content;
      return { tenantId, grant, artifact: { ...grant.artifact, size: content?.origin === 'held' ? content.size : null } };
    }
    case 'ArtifactStored': {
      const { contentSha256, size, mediaType } = event.data;
      return state && { ...state, artifact: { ...state.artifact, status: 'ready', contentSha256, size, mediaType } };
    }
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
}
