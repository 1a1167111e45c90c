import type { ProtectedValue } from '@ledger/ledger';

export type Channel = 'digital' | 'phone' | 'in_person';
export type CaptureTiming = 'deferred_external' | 'embedded';
export type EvidenceKind = 'electronic' | 'audio_recording' | 'physical_document';

/** Where the artifact's bytes are: rendered by the service, supplied and held, or held elsewhere (recorded, never proxied). */
export type ArtifactOrigin = 'generated_pdf' | 'supplied' | 'external_reference';
export type ArtifactStatus = 'pending' | 'ready';

export interface ConsentScope {
  scopeId: string;
  dataCategoryCode: string;
}

/** Bytes the service holds (content-addressed) or a resource held elsewhere, identified by its hash. */
export type EvidenceContent =
  | { origin: 'held'; contentSha256: string; size: number }
  | { origin: 'external_reference'; externalReference: string; contentSha256: string };

export type GrantEvidence =
  | { kind: 'electronic'; authentication: { method: string; reference: string } }
  | { kind: 'audio_recording'; recordedAt: number; mediaType: string; content: EvidenceContent }
  | { kind: 'physical_document'; digitizedAt: number; mediaType: string; content: EvidenceContent };

/**
 * The bank's assertion that a representative acted (docs/reference/grants.md,
 * "Representation"), kept with its provenance. The service does not verify
 * legal powers and never calls them verified; the representative's RUT is kept
 * normalized and protected.
 */
export interface GrantRepresentation {
  type: 'representative';
  identifierRut: ProtectedValue;
  /** For documents that print the representation; never the RUT in clear. */
  identifierRutMasked: string;
  authorityBasis: 'reporter_asserted_representation';
  authorityReference: string;
  assertedAt: number;
}

/**
 * The bank's executive who captured the consent in person or by phone, as
 * RDC30 reports it: the RUT kept only protected, decrypted only while a
 * report is rendered.
 */
export interface GrantExecutive {
  identifierRut: ProtectedValue;
}

export interface ReportableObligationSnapshot {
  status: string;
  sourceSystem: string;
  sourceReference: string;
}

/**
 * The grant: an immutable fact, the first of a consent's stream. It carries
 * everything later consumers need without reading anything else: the
 * regulatory representation (docs/reference/regulatory-representation.md),
 * the evidence view (docs/reference/evidence-and-artifacts.md), the consent
 * certificate, and the `redec.notification.required` webhook (channel,
 * granted_at, purpose, medium, objectives, the codes and ids).
 */
export interface ConsentGranted {
  type: 'ConsentGranted';
  data: {
    redecConsentId: string;
    /** The id of the grant action, which notification evidence and the webhook refer to. */
    consentActionId: string;
    internalConsentCode: string;
    interactionId: string;
    customerId: string;
    configurationId: string;
    templateKey: string;
    configurationVersion: number;
    /** The title and text presented to the data subject, as published in that version. */
    consentTitle: string;
    consentText: string;
    regulatoryProfile: string;
    channel: Channel;
    captureTiming: CaptureTiming;
    finalityCode: string;
    mediumCode: string;
    objectiveCodes: string[];
    scopes: ConsentScope[];
    targets: string[];
    obligationSourceSystem: string;
    /** The regulatory grant instant: `occurredAt` for deferred external capture. */
    grantedAt: number;
    /** When the service received the grant. */
    recordedAt: number;
    /** End of the initial window: 15 banking business days (docs/decisions/0011). Frozen at grant. */
    initialAccessValidUntil: number;
    sourceSystem: string;
    sourceReference: string;
    representation: GrantRepresentation | null;
    /** Present only on grants captured by an executive (absent on grants recorded before executives were). */
    executive?: GrantExecutive;
    reportableObligation: ReportableObligationSnapshot | null;
    evidence: GrantEvidence;
    artifact: { origin: ArtifactOrigin; status: ArtifactStatus; mediaType: string; contentSha256: string | null };
    /** SHA-256 of the grant request as received: an identical retry answers the same, a different one is refused. */
    grantRequestSha256: string;
  };
}

/** The artifact's bytes are held and downloadable: `artifactStatus` becomes `ready`. It is not an authorization (docs/reference/evidence-and-artifacts.md, "Readiness is not authorization"). */
export interface ArtifactStored {
  type: 'ArtifactStored';
  data: { redecConsentId: string; contentSha256: string; size: number; mediaType: string; storedAt: number };
}

/**
 * The data subject revoked. `effective` says whether the revocation stopped the
 * consent when it was recorded: it is kept without effect while a credit
 * extension is active (an `extended` consent is not revocable:
 * docs/reference/states.md, "Consent status"). Whether it is in effect later is
 * derived from the facts that follow (`revocationEffect`), never from this
 * flag.
 */
export interface RevocationRecorded {
  type: 'RevocationRecorded';
  data: {
    redecConsentId: string;
    /** The revocation action, which notification evidence and the webhook refer to. */
    consentActionId: string;
    /** Carried so the `revoke` webhook is built from this fact alone. */
    internalConsentCode: string;
    revokedAt: number;
    channel: string;
    sourceType: string;
    identityAssurance: string;
    effective: boolean;
    recordedAt: number;
  };
}

/**
 * A fact made an effective revocation ineffective again: a credit granted
 * before the accepted revokedAt, registered later, or an extension whose end
 * was annulled. Append-only: the revocation fact itself never changes, and
 * there is no correction notification (docs/reference/revocations.md,
 * "Correction").
 */
export interface RevocationCorrected {
  type: 'RevocationCorrected';
  data: { redecConsentId: string; creditExtensionId: string; correctedAt: number };
}

/**
 * A revocation kept without effect took effect: the last active extension
 * ended (or was annulled). Recorded with the fact that caused it, so the audit
 * trail shows when the data subject's will prevailed; `effectiveAt` is the
 * instant the consent stopped enabling access, which the retention floor
 * counts from.
 */
export interface RevocationTookEffect {
  type: 'RevocationTookEffect';
  data: { redecConsentId: string; consentActionId: string; effectiveAt: number };
}

/**
 * A credit extension keeps the consent for the exact obligation it arose from.
 * It is also that obligation's binding (docs/reference/obligations.md, "Binding
 * an obligation"): the obligation is `obligationSourceSystem` +
 * `creditOperationReference`, and the code to report for it is
 * `internalConsentCode`, all in this one fact.
 */
export interface CreditExtensionRegistered {
  type: 'CreditExtensionRegistered';
  data: {
    redecConsentId: string;
    creditExtensionId: string;
    internalConsentCode: string;
    /** The consent's obligation source system, frozen at publication. */
    obligationSourceSystem: string;
    objectiveCode: string;
    creditOperationReference: string;
    creditGrantedAt: number;
    extendedAt: number;
    sourceSystem: string;
    sourceReference: string;
  };
}

export const CREDIT_EXTENSION_END_REASONS = ['obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation'] as const;
export type CreditExtensionEndReason = (typeof CREDIT_EXTENSION_END_REASONS)[number];

/** The obligation an extension arose from, carried by each fact about the extension so the obligation's read model can follow it. */
interface ExtensionObligation {
  redecConsentId: string;
  creditExtensionId: string;
  obligationSourceSystem: string;
  creditOperationReference: string;
}

/**
 * Reported once (docs/reference/credit-extensions.md, "Ending an
 * extension"). `endedAt` is when the obligation ended at the
 * bank (the request's `occurredAt`, default its receipt). A superseding
 * obligation does not inherit the consent.
 */
export interface CreditExtensionEnded {
  type: 'CreditExtensionEnded';
  data: ExtensionObligation & {
    endReason: CreditExtensionEndReason;
    supersededByObligationReference: string | null;
    endedAt: number;
  };
}

/** Why and on whose reference a recorded fact is annulled: an annulment is a fact too, never an erasure. */
export interface Annulment {
  reason: string;
  sourceReference: string;
  annulledAt: number;
}

/**
 * A credit extension registered by mistake: the read and the consent-code
 * lookup behave as if it had never been registered (with its end and any
 * correction it caused); its facts stay in the stream for the audit.
 */
export interface CreditExtensionAnnulled {
  type: 'CreditExtensionAnnulled';
  /** `supersededByObligationReference` of its end in force, if any: that obligation is no longer kept from the consent. */
  data: ExtensionObligation & Annulment & { supersededByObligationReference: string | null };
}

/** The end of an extension reported by mistake: the extension is active again. */
export interface CreditExtensionEndAnnulled {
  type: 'CreditExtensionEndAnnulled';
  /** `supersededByObligationReference` of the annulled end, if any: that obligation is no longer kept from the consent. */
  data: ExtensionObligation & Annulment & { supersededByObligationReference: string | null };
}

export type NotificationReason = 'grant' | 'revoke';
export type NotificationStatus = 'sent' | 'delivered' | 'bounced';

/**
 * Evidence that the bank notified the data subject of the grant or the
 * revocation, anchored to that action. Append-only: each known delivery state
 * is a new fact. The message itself stays with the bank; only its hash and the
 * recipient's hash are recorded.
 */
export interface NotificationEvidenceRecorded {
  type: 'NotificationEvidenceRecorded';
  data: {
    redecConsentId: string;
    notificationEvidenceId: string;
    /** The grant or revocation action notified. */
    consentActionId: string;
    notificationReason: NotificationReason;
    notificationChannel: string;
    recipientHash: string;
    status: NotificationStatus;
    sentAt: number;
    sourceSystem: string;
    sourceReference: string;
    contentSha256: string;
    contentReference: string | null;
    recordedAt: number;
  };
}

export type ConsentEvent =
  | ConsentGranted
  | ArtifactStored
  | RevocationRecorded
  | RevocationCorrected
  | RevocationTookEffect
  | CreditExtensionRegistered
  | CreditExtensionEnded
  | CreditExtensionAnnulled
  | CreditExtensionEndAnnulled
  | NotificationEvidenceRecorded;

/** Every fact of a consent's stream, for routing. */
export const CONSENT_EVENT_TYPES: ReadonlySet<string> = new Set<ConsentEvent['type']>([
  'ConsentGranted',
  'ArtifactStored',
  'RevocationRecorded',
  'RevocationCorrected',
  'RevocationTookEffect',
  'CreditExtensionRegistered',
  'CreditExtensionEnded',
  'CreditExtensionAnnulled',
  'CreditExtensionEndAnnulled',
  'NotificationEvidenceRecorded',
]);
