/** The rights a data subject exercises under Ley 21.719 (Arts. 4–9), and REDEC's dispute of the data a reporter sent. */
export const RIGHTS_REQUEST_KINDS = ['access', 'rectification', 'suppression', 'opposition', 'portability', 'blocking', 'redec_dispute'] as const;
export type RightsRequestKind = (typeof RIGHTS_REQUEST_KINDS)[number];

/** What a REDEC dispute asks of the registry data: the classifications of the RDC40 file. */
export const REDEC_DISPUTE_CLASSIFICATIONS = ['update', 'rectification', 'complementation', 'cancellation'] as const;
export type RedecDisputeClassification = (typeof REDEC_DISPUTE_CLASSIFICATIONS)[number];

export const RIGHTS_REQUEST_OUTCOMES = ['approved', 'partially_approved', 'rejected'] as const;
export type RightsRequestOutcome = (typeof RIGHTS_REQUEST_OUTCOMES)[number];

export interface RedecDispute {
  classification: RedecDisputeClassification;
  reasonCode: string;
  operationReference: string;
}

/** How and when the answer reached the data subject, and the SHA-256 of what was sent: what proves the answer later. */
export interface RightsResponse {
  channel: string;
  sentAt: number;
  contentSha256: string;
}

/**
 * A request's deadline as the service computed it, kept in the fact: a later
 * change of the holiday table never moves a deadline already told to the
 * bank, and the table's version says which holidays it was counted with.
 */
export interface ComputedDeadline {
  dueAt: number;
  calendarVersion: string;
}

export type RightsRequestReceived = {
  type: 'RightsRequestReceived';
  data: {
    rightsRequestId: string;
    customerId: string;
    kind: RightsRequestKind;
    receivedAt: number;
    channel: string;
    sourceSystem: string;
    sourceReference: string;
    /** The request in the data subject's words, under the customer's key: erasing the customer erases it. */
    descriptionCiphertext?: string;
    /** Only, and always, for a REDEC dispute. */
    redec?: RedecDispute;
    /** For an opposition, the consents it concerns, all the data subject's (decision 0070). */
    redecConsentIds?: string[];
    recordedAt: number;
  } & ComputedDeadline;
};

export type RightsRequestAnalysisStarted = {
  type: 'RightsRequestAnalysisStarted';
  data: { rightsRequestId: string; startedAt: number; recordedAt: number };
};

/** Art. 11: the term is extended once, for a reason told to the data subject; `dueAt` is the new deadline. */
export type RightsRequestExtended = {
  type: 'RightsRequestExtended';
  data: { rightsRequestId: string; extendedAt: number; reason: string; recordedAt: number } & ComputedDeadline;
};

/**
 * The subject's report an answer to an access or portability request gave
 * (decision 0071), as the service rendered it: the instant it stands at,
 * and the SHA-256 of its JSON and of its PDF. The report is a function of
 * the facts recorded by `asOf`, so anyone can render it again and compare.
 */
export interface SubjectReportDigest {
  asOf: number;
  jsonSha256: string;
  pdfSha256: string;
}

/**
 * Where one record of the data subject stands for erasure when a
 * suppression is answered (decision 0073): `past_floor` (erasable now),
 * `within_floor` (erasable after `retentionUntil`), `in_force` (a consent
 * that still enables access: its floor has not started) or `no_floor` (a
 * general consent: erasable now).
 */
export interface SuppressedRecord {
  record: { kind: 'redec_consent'; redecConsentId: string } | { kind: 'general_consent'; consentId: string };
  reason: 'past_floor' | 'within_floor' | 'in_force' | 'no_floor';
  retentionUntil: number | null;
  retentionBasis: string | null;
}

/** What a suppression answered in all or part says of erasure, as the service assessed it at the answer. */
export interface SuppressionAssessment {
  assessedAt: number;
  records: SuppressedRecord[];
  /** The holds in force on the subject's data: erasure waits for their release whatever the floors say. */
  legalHoldsInForce: string[];
  /** When every record may be erased: the latest floor, or `assessedAt` when none is left; null while a consent is in force. */
  erasableFrom: number | null;
}

/** `complaintDeadline`: for an answer that refuses all or part of the request, the end of the data subject's window to complain to the Agency. */
export type RightsRequestResolved = {
  type: 'RightsRequestResolved';
  data: {
    rightsRequestId: string;
    resolvedAt: number;
    outcome: RightsRequestOutcome;
    reason?: string;
    response: RightsResponse;
    complaintDeadline: number | null;
    /** For an access or portability request answered in all or part. */
    subjectReport?: SubjectReportDigest;
    /** For a suppression answered in all or part. */
    suppression?: SuppressionAssessment;
    recordedAt: number;
  };
};

/** An approved block stops being in force. */
export type RightsRequestBlockLifted = {
  type: 'RightsRequestBlockLifted';
  data: { rightsRequestId: string; liftedAt: number; reason?: string; recordedAt: number };
};

/**
 * What a correction made for a rectification changed: a REDEC consent of the
 * data subject, the customer's own record in the ledger (through the
 * ledger's own routes), or a record the bank keeps in its systems.
 */
export type RectifiedRecord = { kind: 'redec_consent'; redecConsentId: string } | { kind: 'customer' } | { kind: 'bank_record'; sourceSystem: string; sourceReference: string };
export const RECTIFIED_RECORD_KINDS = ['redec_consent', 'customer', 'bank_record'] as const;

/**
 * A correction made for a rectification or a REDEC dispute (decision 0072):
 * a new fact linked to the request, which rewrites nothing. It is no step of
 * the request's status and moves none of its instants.
 */
export type RightsRequestRectified = {
  type: 'RightsRequestRectified';
  data: {
    rightsRequestId: string;
    rectificationId: string;
    rectifiedAt: number;
    record: RectifiedRecord;
    /** What was corrected, in the words told to the data subject, under the customer's key: erasing the customer erases it. */
    descriptionCiphertext: string;
    recordedAt: number;
  };
};

export const DEADLINE_NOTICES = ['due_soon', 'overdue'] as const;
export type DeadlineNotice = (typeof DEADLINE_NOTICES)[number];

/**
 * The service saw the open request's deadline near (`due_soon`) or past
 * (`overdue`), and told the bank by webhook (decision 0069). Recorded by
 * the service on its own clock, not by the bank: it is no step of the
 * request's life and moves none of its instants.
 */
export type RightsRequestDeadlineNoticed = {
  type: 'RightsRequestDeadlineNoticed';
  data: { rightsRequestId: string; customerId: string; kind: RightsRequestKind; notice: DeadlineNotice; dueAt: number; recordedAt: number };
};

export type RightsRequestEvent =
  | RightsRequestReceived
  | RightsRequestAnalysisStarted
  | RightsRequestExtended
  | RightsRequestResolved
  | RightsRequestBlockLifted
  | RightsRequestDeadlineNoticed
  | RightsRequestRectified;

export type RightsRequestStatus = 'received' | 'in_analysis' | 'resolved' | 'block_lifted';

export interface RightsRequestState {
  rightsRequestId: string;
  customerId: string;
  kind: RightsRequestKind;
  status: RightsRequestStatus;
  receivedAt: number;
  /** When the service recorded the receipt: from then on the ledger holds the request and its subject. */
  receiptRecordedAt: number;
  dueAt: number;
  extended: boolean;
  outcome: RightsRequestOutcome | null;
  resolvedAt: number | null;
  complaintDeadline: number | null;
  blockLiftedAt: number | null;
  /** The instant of the latest fact: no later fact may say it happened before. */
  lastOccurredAt: number;
  /** The deadline each notice was last given for: a notice is given once per deadline, again after an extension moves it. */
  noticed: Readonly<Record<DeadlineNotice, number | null>>;
}

export function evolveRightsRequest(state: RightsRequestState | null, event: RightsRequestEvent): RightsRequestState | null {
  switch (event.type) {
    case 'RightsRequestReceived': {
      const { rightsRequestId, customerId, kind, receivedAt, dueAt, recordedAt } = event.data;
      return {
        rightsRequestId,
        customerId,
        kind,
        status: 'received',
        receivedAt,
        receiptRecordedAt: recordedAt,
        dueAt,
        extended: false,
        outcome: null,
        resolvedAt: null,
        complaintDeadline: null,
        blockLiftedAt: null,
        lastOccurredAt: receivedAt,
        noticed: { due_soon: null, overdue: null },
      };
    }
    case 'RightsRequestAnalysisStarted':
      return state && { ...state, status: 'in_analysis', lastOccurredAt: event.data.startedAt };
    case 'RightsRequestExtended':
      return state && { ...state, extended: true, dueAt: event.data.dueAt, lastOccurredAt: event.data.extendedAt };
    case 'RightsRequestResolved':
      return state && { ...state, status: 'resolved', outcome: event.data.outcome, resolvedAt: event.data.resolvedAt, complaintDeadline: event.data.complaintDeadline, lastOccurredAt: event.data.resolvedAt };
    case 'RightsRequestBlockLifted':
      return state && { ...state, status: 'block_lifted', blockLiftedAt: event.data.liftedAt, lastOccurredAt: event.data.liftedAt };
    case 'RightsRequestDeadlineNoticed':
      return state && { ...state, noticed: { ...state.noticed, [event.data.notice]: event.data.dueAt } };
    case 'RightsRequestRectified':
      return state;
  }
}

export type RightsRequestStepName = 'received' | 'in_analysis' | 'extended' | 'resolved' | 'block_lifted' | 'rectified' | `${DeadlineNotice}_noticed`;

/** A fact as a step of the request's history: its name, and when it happened (a deadline notice, when the service gave it). */
export function rightsRequestStep(fact: RightsRequestEvent): { step: RightsRequestStepName; occurredAt: number } {
  switch (fact.type) {
    case 'RightsRequestReceived':
      return { step: 'received', occurredAt: fact.data.receivedAt };
    case 'RightsRequestAnalysisStarted':
      return { step: 'in_analysis', occurredAt: fact.data.startedAt };
    case 'RightsRequestExtended':
      return { step: 'extended', occurredAt: fact.data.extendedAt };
    case 'RightsRequestResolved':
      return { step: 'resolved', occurredAt: fact.data.resolvedAt };
    case 'RightsRequestBlockLifted':
      return { step: 'block_lifted', occurredAt: fact.data.liftedAt };
    case 'RightsRequestDeadlineNoticed':
      return { step: `${fact.data.notice}_noticed`, occurredAt: fact.data.recordedAt };
    case 'RightsRequestRectified':
      return { step: 'rectified', occurredAt: fact.data.rectifiedAt };
  }
}
