import type { CaptureTiming, Channel, GrantEvidence } from '@ledger/redec';

/**
 * A general (non-REDEC) consent: the data subject accepted a configuration
 * published without a `redec` block (terms of service, marketing, a privacy
 * notice). It carries what the customer's consents and compliance read: the
 * template and version accepted, how, and when.
 */
export interface GeneralConsentGranted {
  type: 'GeneralConsentGranted';
  data: {
    consentId: string;
    /** The grant action, as REDEC grants have one. */
    consentActionId: string;
    interactionId: string;
    customerId: string;
    configurationId: string;
    templateKey: string;
    configurationVersion: number;
    /** The title and text presented to the data subject, as published in that version. */
    consentTitle: string;
    consentText: string;
    channel: Channel;
    captureTiming: CaptureTiming;
    /** When the data subject accepted: `occurredAt`, or the service's receipt for embedded capture. */
    grantedAt: number;
    recordedAt: number;
    sourceSystem: string;
    sourceReference: string;
    evidence: GrantEvidence;
    /** SHA-256 of the grant request as received: an identical retry answers the same, a different one is refused. */
    grantRequestSha256: string;
  };
}

/** The data subject withdrew a general consent. There is no undoing it: accepting again is a new consent. */
export interface GeneralConsentRevoked {
  type: 'GeneralConsentRevoked';
  data: {
    consentId: string;
    consentActionId: string;
    revokedAt: number;
    channel: Channel;
    sourceSystem: string;
    sourceReference: string;
    recordedAt: number;
  };
}

export type GeneralConsentEvent = GeneralConsentGranted | GeneralConsentRevoked;

export const GENERAL_CONSENT_EVENT_TYPES: ReadonlySet<string> = new Set<GeneralConsentEvent['type']>(['GeneralConsentGranted', 'GeneralConsentRevoked']);
