import { ArtifactStatus, ConsentEvent, ConsentGranted } from './consent.events';

/**
 * A consent as its facts say it is. Status, validity and retention are not
 * stored: they depend on the clock and are derived at read time
 * (representation.ts), so an expiry is visible without any job having run.
 */
export interface ConsentState {
  tenantId: string;
  grant: Omit<ConsentGranted['data'], 'grantRequestSha256'>;
  artifactStatus: ArtifactStatus;
}

export function evolveConsent(_state: ConsentState | null, event: ConsentEvent, tenantId: string): ConsentState | null {
  switch (event.type) {
    case 'ConsentGranted': {
      // The request hash only serves to recognise a retry; it is not part of the consent.
      const { grantRequestSha256: _requestHash, ...grant } = event.data;
      return { tenantId, grant, artifactStatus: grant.artifact.status };
    }
    default: {
      const unexpected: never = event.type;
      return unexpected;
    }
  }
}
