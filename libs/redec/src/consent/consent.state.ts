import { ArtifactOrigin, ArtifactStatus, ConsentEvent, ConsentGranted, CreditExtensionEndReason, NotificationEvidenceRecorded } from './consent.events';

export interface ConsentArtifact {
  origin: ArtifactOrigin;
  status: ArtifactStatus;
  mediaType: string;
  contentSha256: string | null;
  /** Known for bytes the service holds; null for a pending PDF or a resource held elsewhere. */
  size: number | null;
}

export interface ConsentRevocation {
  consentActionId: string;
  revokedAt: number;
  channel: string;
  /**
   * The corrections in force: registrations (or end annulments) that made the
   * revocation ineffective again. A correction goes with its extension when
   * that extension is annulled.
   */
  corrections: Array<{ creditExtensionId: string; correctedAt: number }>;
}

export interface CreditExtension {
  creditExtensionId: string;
  objectiveCode: string;
  creditOperationReference: string;
  creditGrantedAt: number;
  extendedAt: number;
  status: 'active' | 'ended';
  endReason: CreditExtensionEndReason | null;
  endedAt: number | null;
  supersededByObligationReference: string | null;
}

export type NotificationEvidence = Omit<NotificationEvidenceRecorded['data'], 'redecConsentId'>;

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
  revocation: ConsentRevocation | null;
  /** The extensions in force, ended or not; an annulled one is not here, as if it had never been registered. */
  creditExtensions: CreditExtension[];
  /** Annulled extensions, kept only so that a second annulment or an end of one is refused for what it is. */
  annulledCreditExtensions: CreditExtension[];
  /** Append-only, in the order recorded (docs/reference/notification-evidence.md, "One record per delivery state"). */
  notifications: NotificationEvidence[];
}

export function evolveConsent(state: ConsentState | null, event: ConsentEvent, tenantId: string): ConsentState | null {
  switch (event.type) {
    case 'ConsentGranted': {
      // The request hash only serves to recognise a retry; it is not part of the consent.
      const { grantRequestSha256: _requestHash, ...grant } = event.data;
      const content = grant.evidence.kind === 'electronic' ? null : grant.evidence.content;
      return {
        tenantId,
        grant,
        artifact: { ...grant.artifact, size: content?.origin === 'held' ? content.size : null },
        revocation: null,
        creditExtensions: [],
        annulledCreditExtensions: [],
        notifications: [],
      };
    }
    case 'ArtifactStored': {
      const { contentSha256, size, mediaType } = event.data;
      return state && { ...state, artifact: { ...state.artifact, status: 'ready', contentSha256, size, mediaType } };
    }
    case 'RevocationRecorded': {
      const { consentActionId, revokedAt, channel } = event.data;
      return state && { ...state, revocation: { consentActionId, revokedAt, channel, corrections: [] } };
    }
    case 'RevocationCorrected': {
      const { creditExtensionId, correctedAt } = event.data;
      return state && state.revocation && { ...state, revocation: { ...state.revocation, corrections: [...state.revocation.corrections, { creditExtensionId, correctedAt }] } };
    }
    case 'RevocationTookEffect':
      // A record of a change the other facts already make (revocationEffect): it changes nothing by itself.
      return state;
    case 'CreditExtensionRegistered': {
      const { creditExtensionId, objectiveCode, creditOperationReference, creditGrantedAt, extendedAt } = event.data;
      const extension = { creditExtensionId, objectiveCode, creditOperationReference, creditGrantedAt, extendedAt };
      const registered: CreditExtension = { ...extension, status: 'active', endReason: null, endedAt: null, supersededByObligationReference: null };
      return state && { ...state, creditExtensions: [...state.creditExtensions, registered] };
    }
    case 'CreditExtensionEnded': {
      const { creditExtensionId, endReason, endedAt, supersededByObligationReference } = event.data;
      return state && withExtension(state, creditExtensionId, (e) => ({ ...e, status: 'ended', endReason, endedAt, supersededByObligationReference }));
    }
    case 'CreditExtensionEndAnnulled':
      return state && withExtension(state, event.data.creditExtensionId, (e) => ({ ...e, status: 'active', endReason: null, endedAt: null, supersededByObligationReference: null }));
    case 'CreditExtensionAnnulled': {
      const { creditExtensionId } = event.data;
      const annulled = state?.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId);
      if (!state || !annulled) return state;
      const { revocation } = state;
      return {
        ...state,
        creditExtensions: state.creditExtensions.filter((e) => e !== annulled),
        annulledCreditExtensions: [...state.annulledCreditExtensions, annulled],
        revocation: revocation && { ...revocation, corrections: revocation.corrections.filter((c) => c.creditExtensionId !== creditExtensionId) },
      };
    }
    case 'NotificationEvidenceRecorded': {
      const { redecConsentId: _consent, ...evidence } = event.data;
      return state && { ...state, notifications: [...state.notifications, evidence] };
    }
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
}

function withExtension(state: ConsentState, creditExtensionId: string, change: (extension: CreditExtension) => CreditExtension): ConsentState {
  return { ...state, creditExtensions: state.creditExtensions.map((e) => (e.creditExtensionId === creditExtensionId ? change(e) : e)) };
}
