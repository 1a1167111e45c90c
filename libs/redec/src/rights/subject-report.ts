import type { RecordedEvent } from '@ledger/event-store';
import { Customer, CustomerEvent, LegalHold, evolveCustomer } from '@ledger/ledger';
import { AccessDecided, AccessConfirmed, AccessOutcome } from '../access/access.events';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, NotificationEvidence, evolveConsent } from '../consent/consent.state';
import { RegulatoryRepresentation, regulatoryRepresentation } from '../consent/regulatory-representation';
import { RectifiedRecord, RightsRequestEvent, RightsRequestKind, RightsRequestOutcome, RightsRequestState, RightsRequestStatus, evolveRightsRequest, rightsRequestStep } from './rights-request.events';

/** The version of the report's layout (docs/reference/rights-requests.md, "The subject's report"): a change that removes or renames a member makes a new one. */
export const SUBJECT_REPORT_SCHEMA = 'subject-report/1';

/** The kinds of request the subject's report answers: access to the data, and its portability. */
export const SUBJECT_REPORT_KINDS: readonly RightsRequestKind[] = ['access', 'portability'];

export interface ReportedIdentifier {
  system: string;
  type: string;
  /** In clear: the data subject's own; null once erased. */
  value: string | null;
  verification: { method: string; sourceReference: string; verifiedAt: number } | null;
}

export interface ReportedDataSubject {
  customerId: string;
  /** The bank's reference for the customer; null once erased. */
  userReference: string | null;
  identifiers: ReportedIdentifier[];
  registeredAt: number;
  /** When its identifiers and evidence were erased (decision 0035); null while they exist. */
  erasedAt: number | null;
}

/** One access decision taken under a consent, and what the bank reported of the registry query it allowed. */
export interface ReportedAccess {
  redecAccessId: string;
  decidedAt: number;
  status: 'authorized' | 'denied';
  denyReasonCode: string | null;
  dataCategoryCode: string;
  objectiveCode: string;
  accessPurpose: string | null;
  /** Whether a third party queried the registry on the bank's behalf (its RUT is not the data subject's and is not shown). */
  throughMandatary: boolean;
  /** The bank's report of the query; null while it has given none. */
  confirmation: { outcome: AccessOutcome; confirmedAt: number } | null;
}

/** A notice of the grant or revocation, as the bank recorded its delivery (the recipient and the message stay with the bank, as hashes). */
export type ReportedNotice = Pick<NotificationEvidence, 'notificationEvidenceId' | 'consentActionId' | 'notificationReason' | 'notificationChannel' | 'status' | 'sentAt' | 'recordedAt'>;

export interface ReportedRedecConsent {
  templateKey: string;
  configurationVersion: number;
  consentTitle: string;
  /** The regulatory representation as of the report's `asOf`. */
  representation: RegulatoryRepresentation;
  accesses: ReportedAccess[];
  notices: ReportedNotice[];
}

/** A consent outside REDEC (terms, a privacy notice, marketing). */
export interface ReportedGeneralConsent {
  consentId: string;
  templateKey: string;
  configurationVersion: number;
  consentTitle: string;
  channel: string;
  grantedAt: number;
  revokedAt: number | null;
}

export interface ReportedRightsRequest {
  rightsRequestId: string;
  kind: RightsRequestKind;
  status: RightsRequestStatus;
  receivedAt: number;
  dueAt: number;
  extended: boolean;
  outcome: RightsRequestOutcome | null;
  resolvedAt: number | null;
  complaintDeadline: number | null;
  /** The request in the data subject's words; null when none was recorded or once erased. */
  description: string | null;
  /** The corrections made for it (decision 0072); what was corrected is null once erased. */
  rectifications: Array<{ rectificationId: string; rectifiedAt: number; record: RectifiedRecord; description: string | null }>;
  history: Array<{ step: string; occurredAt: number }>;
}

/** What the ledger holds about a data subject at an instant: what the subject's report gives, and the privacy center shows. */
export interface SubjectRecords {
  asOf: number;
  dataSubject: ReportedDataSubject;
  redecConsents: ReportedRedecConsent[];
  generalConsents: ReportedGeneralConsent[];
  legalHolds: LegalHold[];
  rightsRequests: ReportedRightsRequest[];
}

/**
 * The subject's records as the answer to an access or portability request
 * gives them (decision 0071): a function of the facts recorded by `asOf`, so
 * the same instant gives the same report, and the same bytes, however often
 * and whenever it is read.
 */
export interface SubjectReport extends SubjectRecords {
  schema: typeof SUBJECT_REPORT_SCHEMA;
  rightsRequestId: string;
  kind: RightsRequestKind;
}

/** Everything the records are made of, as read from the store; what was recorded after `asOf` is left out here, not by the reader. */
export interface SubjectRecordFacts {
  tenantId: string;
  asOf: number;
  /** The customer's stream. */
  customer: RecordedEvent[];
  /** Each consent's facts (consentFacts: its own stream, then those of its accesses and bindings), in store order. */
  redecConsents: RecordedEvent[][];
  generalConsents: ReportedGeneralConsent[];
  /** Each of the subject's requests' facts (their own stream's and their blocks'). */
  rightsRequests: RightsRequestEvent[][];
  /** The clear text of each ciphertext the facts hold; null for one erased with the customer's key. */
  opened: ReadonlyMap<string, string | null>;
}

/** The subject's report answering a request: its records, named after the request. */
export function subjectReportOf(request: Pick<SubjectReport, 'rightsRequestId' | 'kind'>, records: SubjectRecords): SubjectReport {
  return { schema: SUBJECT_REPORT_SCHEMA, rightsRequestId: request.rightsRequestId, kind: request.kind, ...records };
}

/** The subject's records from their facts. */
export function subjectRecordsOf(facts: SubjectRecordFacts): SubjectRecords {
  const { asOf, opened } = facts;
  const recordedByThen = (event: RecordedEvent) => event.metadata.recordedAt <= asOf;
  const open = (ciphertext: string | undefined) => (ciphertext === undefined ? null : (opened.get(ciphertext) ?? null));
  const customerFacts = facts.customer.filter((event) => recordedByThen(event) || event.type === 'CustomerDataErased');
  const customer = customerFacts.reduce<Customer | null>((state, event) => evolveCustomer(state, event as unknown as CustomerEvent), null);
  if (!customer) throw new Error('the subject of a rights request has no customer facts');
  const registered = customerFacts[0].data as { userReference: { ciphertext: string } };
  return {
    asOf,
    dataSubject: {
      customerId: customer.customerId,
      userReference: open(registered.userReference.ciphertext),
      identifiers: customer.identifiers.map(({ system, type, value, verification }) => ({ system, type, value: open(value.ciphertext), verification })),
      registeredAt: customer.registeredAt,
      erasedAt: customer.erasedAt,
    },
    redecConsents: facts.redecConsents
      .map((consentFacts) => reportedRedecConsent(consentFacts.filter(recordedByThen), facts.tenantId, asOf))
      .filter((consent): consent is ReportedRedecConsent => consent !== null)
      .sort((a, b) => a.representation.grantedAt - b.representation.grantedAt || byCodePoint(a.representation.redecConsentId, b.representation.redecConsentId)),
    generalConsents: [...facts.generalConsents].sort((a, b) => a.grantedAt - b.grantedAt || byCodePoint(a.consentId, b.consentId)),
    legalHolds: customer.legalHolds,
    rightsRequests: facts.rightsRequests
      .map((requestFacts) => reportedRightsRequest(requestFacts.filter((fact) => fact.data.recordedAt <= asOf), open))
      .filter((request): request is ReportedRightsRequest => request !== null)
      .sort((a, b) => a.receivedAt - b.receivedAt || byCodePoint(a.rightsRequestId, b.rightsRequestId)),
  };
}

/** Ties broken by code point, never by locale: the same report must be the same bytes on any runtime. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function reportedRedecConsent(facts: RecordedEvent[], tenantId: string, asOf: number): ReportedRedecConsent | null {
  if (facts.length === 0) return null;
  const ownStream = facts[0].streamId;
  let consent: ConsentState | null = null;
  const accesses = new Map<string, ReportedAccess>();
  for (const event of facts) {
    if (event.streamId === ownStream) consent = evolveConsent(consent, event as unknown as ConsentEvent, tenantId);
    else if (event.type === 'AccessDecided') accesses.set(...reportedDecision(event.data as AccessDecided['data']));
    else if (event.type === 'AccessConfirmed') {
      const { redecAccessId, outcome, confirmedAt } = event.data as AccessConfirmed['data'];
      const access = accesses.get(redecAccessId);
      if (access) accesses.set(redecAccessId, { ...access, confirmation: { outcome, confirmedAt } });
    }
  }
  if (!consent) return null;
  const { grant, notifications } = consent as ConsentState;
  return {
    templateKey: grant.templateKey,
    configurationVersion: grant.configurationVersion,
    consentTitle: grant.consentTitle,
    representation: regulatoryRepresentation(consent, asOf),
    accesses: [...accesses.values()],
    notices: notifications.map(({ notificationEvidenceId, consentActionId, notificationReason, notificationChannel, status, sentAt, recordedAt }) => ({
      notificationEvidenceId,
      consentActionId,
      notificationReason,
      notificationChannel,
      status,
      sentAt,
      recordedAt,
    })),
  };
}

function reportedDecision(decision: AccessDecided['data']): [string, ReportedAccess] {
  const { redecAccessId, decidedAt, status, denyReasonCode, request } = decision;
  return [
    redecAccessId,
    {
      redecAccessId,
      decidedAt,
      status,
      denyReasonCode,
      dataCategoryCode: request.dataCategoryCode,
      objectiveCode: request.objectiveCode,
      accessPurpose: request.accessPurpose ?? null,
      throughMandatary: request.mandatary !== undefined,
      confirmation: null,
    },
  ];
}

function reportedRightsRequest(facts: RightsRequestEvent[], open: (ciphertext: string | undefined) => string | null): ReportedRightsRequest | null {
  const received = facts[0];
  if (received?.type !== 'RightsRequestReceived') return null;
  const state = facts.reduce<RightsRequestState | null>(evolveRightsRequest, null)!;
  const { rightsRequestId, kind, status, receivedAt, dueAt, extended, outcome, resolvedAt, complaintDeadline } = state;
  return {
    rightsRequestId,
    kind,
    status,
    receivedAt,
    dueAt,
    extended,
    outcome,
    resolvedAt,
    complaintDeadline,
    description: open(received.data.descriptionCiphertext),
    rectifications: facts.flatMap((fact) =>
      fact.type === 'RightsRequestRectified' ? [{ rectificationId: fact.data.rectificationId, rectifiedAt: fact.data.rectifiedAt, record: fact.data.record, description: open(fact.data.descriptionCiphertext) }] : [],
    ),
    // The service's reminders to the bank are not steps the data subject saw.
    history: facts.filter((fact) => fact.type !== 'RightsRequestDeadlineNoticed').map(rightsRequestStep),
  };
}

/** Every ciphertext a report opens: the customer's reference and identifiers, and the requests' descriptions and corrections. */
export function subjectCiphertexts(customer: readonly RecordedEvent[], rightsRequests: readonly RightsRequestEvent[][]): string[] {
  const ciphertexts: string[] = [];
  for (const event of customer) {
    const data = event.data as { userReference?: { ciphertext: string }; identifiers?: Array<{ value: { ciphertext: string } }>; identifier?: { value: { ciphertext: string } } };
    if (data.userReference) ciphertexts.push(data.userReference.ciphertext);
    for (const identifier of [...(data.identifiers ?? []), ...(data.identifier ? [data.identifier] : [])]) ciphertexts.push(identifier.value.ciphertext);
  }
  for (const fact of rightsRequests.flat()) {
    if (fact.type === 'RightsRequestReceived' && fact.data.descriptionCiphertext !== undefined) ciphertexts.push(fact.data.descriptionCiphertext);
    if (fact.type === 'RightsRequestRectified') ciphertexts.push(fact.data.descriptionCiphertext);
  }
  return ciphertexts;
}
