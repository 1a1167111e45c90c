import type { CaptureTiming, GrantEvidence, GrantRequest, GrantableConfiguration } from '@ledger/redec';

export type ItemDecision = 'accepted' | 'declined';

/** The part of a REDEC grant request that belongs to one item; `occurredAt`, `sourceSystem` and `sourceReference` are the decision's. */
export type ItemGrantRequest = Omit<GrantRequest, 'occurredAt' | 'sourceSystem' | 'sourceReference'>;

/** What an accepted item records, under the id it is recorded with (derived from the item's interaction). */
export type DecisionItemConsent =
  | { kind: 'redec'; redecConsentId: string; grant: ItemGrantRequest }
  | { kind: 'general'; consentId: string; evidence: GrantEvidence };

export interface ConsentDecisionItem {
  configurationId: string;
  /** The configuration version decided on, frozen as an interaction freezes it. */
  configuration: GrantableConfiguration;
  decision: ItemDecision;
  /**
   * The item's interaction: the one an embed session opened for the
   * configuration or, for a decision sent to the API, an id derived from the
   * decision and the configuration (the item is an interaction opened and
   * decided in one request). The consent's id is derived from it.
   */
  interactionId: string;
  /** null for a declined item: a declined item records only the decision, as a declined embed session does. */
  consent: DecisionItemConsent | null;
}

/**
 * A Multi-Consent decision: the data subject decided on several published
 * configurations at once. It is the commit point of all of them: appended
 * as the first fact of its stream once every item passed every rule, it
 * holds everything its consents are derived from, so the consents are
 * recorded after it (exactly once each, under derived ids), by the request
 * or by whoever reads the decision next.
 */
export interface ConsentDecisionRecorded {
  type: 'ConsentDecisionRecorded';
  data: {
    decisionId: string;
    customerId: string;
    /** When the data subject decided: every accepted item's grantedAt. */
    occurredAt: number;
    /** The service's receipt of the decision: the receipt its consents' rules read, however late they are completed. */
    recordedAt: number;
    sourceSystem: string;
    sourceReference: string;
    captureTiming: CaptureTiming;
    /** The embed session the decision was taken on; null for a decision sent to the API. */
    embedSessionId: string | null;
    /**
     * For a decision sent to the API, which opens no interaction: the data
     * subject's name as the bank chose to show it on the certificates, under
     * the customer's key (a session's is on its interactions). Absent on
     * decisions recorded before it was kept.
     */
    dataSubjectNameCiphertext?: string | null;
    /** Identifies the request: its consents carry it as their grantRequestSha256, so recording one again answers the same. */
    requestSha256: string;
    items: ConsentDecisionItem[];
  };
}

export type ConsentDecisionEvent = ConsentDecisionRecorded;
