import { conflict, fieldRefused, notFound, unprocessable } from '@ledger/platform';
import { BankingCalendar } from '../calendar/banking-calendar';
import { RightsDeadlines, complaintDeadline, dueSoonFrom, isExtensible, rightsRequestDueAt } from './rights-clocks';
import { SUBJECT_REPORT_KINDS } from './subject-report';
import {
  DeadlineNotice,
  RectifiedRecord,
  RightsRequestDeadlineNoticed,
  RightsRequestEvent,
  RightsRequestKind,
  RightsRequestOutcome,
  RightsRequestReceived,
  RightsRequestRectified,
  RightsRequestState,
  RightsResponse,
  SubjectReportDigest,
  SuppressionAssessment,
} from './rights-request.events';

/** What the rules of a rights request are weighed with; `now` is passed to each decision. */
export interface RightsPolicy {
  calendar: BankingCalendar;
  deadlines: RightsDeadlines;
  /** How much later than the service clock an instant of the bank's clock may read (the baseline Regulatory Profile's). */
  callerClockSkewMs: number;
}

/** A request as received: its fact's fields but those the service computes (the deadline, the table it was counted with, the instant recorded). */
export type ReceiveRightsRequest = Omit<RightsRequestReceived['data'], 'dueAt' | 'calendarVersion' | 'recordedAt'>;

export const RIGHTS_TRANSITIONS = ['in_analysis', 'extended', 'resolved', 'block_lifted'] as const;
export type RightsTransitionTarget = (typeof RIGHTS_TRANSITIONS)[number];

/** A transition as the bank reports it: `outcome` and `response` only to resolve; `reason` to extend, to refuse all or part, or to lift a block. */
export interface RightsTransition {
  to: RightsTransitionTarget;
  occurredAt: number;
  reason?: string;
  outcome?: RightsRequestOutcome;
  response?: RightsResponse;
  /** For an answer that gives the subject's report: the instant of the report sent (otherwise when the answer was sent). */
  subjectReportAsOf?: number;
}

/** The rules a request is held to before anything is recorded for it, its customer included. */
export function checkRightsRequest(request: Pick<ReceiveRightsRequest, 'kind' | 'receivedAt' | 'redec' | 'redecConsentIds'>, policy: RightsPolicy, now: number): void {
  if (request.kind === 'redec_dispute' && !request.redec) throw fieldRefused('redec', 'required_for_redec_dispute', 'A REDEC dispute needs its classification, reason and operation reference.');
  if (request.kind !== 'redec_dispute' && request.redec) throw fieldRefused('redec', 'only_with_redec_dispute', 'redec is only sent with kind redec_dispute.');
  const consents = request.redecConsentIds;
  if (consents !== undefined && request.kind !== 'opposition') throw fieldRefused('redecConsentIds', 'only_with_opposition', 'redecConsentIds is only sent with kind opposition.');
  if (consents !== undefined && new Set(consents).size !== consents.length) throw fieldRefused('redecConsentIds', 'duplicate', 'Each consent is named once.');
  notInTheFuture('receivedAt', request.receivedAt, policy, now);
}

/** The first fact of a request's stream, which the store records only on a stream that has none (so a request is received once). */
export function decideReceiveRightsRequest(request: ReceiveRightsRequest, policy: RightsPolicy, now: number): RightsRequestEvent[] {
  checkRightsRequest(request, policy, now);
  const { descriptionCiphertext, redec, redecConsentIds, ...received } = request;
  return [
    {
      type: 'RightsRequestReceived',
      data: {
        ...received,
        ...(descriptionCiphertext !== undefined ? { descriptionCiphertext } : {}),
        ...(redec ? { redec } : {}),
        ...(redecConsentIds ? { redecConsentIds } : {}),
        dueAt: rightsRequestDueAt(request.kind, request.receivedAt, false, policy.calendar, policy.deadlines),
        calendarVersion: policy.calendar.version,
        recordedAt: now,
      },
    },
  ];
}

/**
 * The instant of the subject's report a transition's answer gives, or null
 * when it gives none (decision 0071). An access or portability request
 * answered in all or part gives the report as of `subjectReportAsOf`, else
 * as of when the answer was sent, taken no earlier than the receipt was
 * recorded and no later than now.
 */
export function subjectReportAsOf(request: Pick<RightsRequestState, 'kind' | 'receiptRecordedAt'>, transition: RightsTransition, now: number): number | null {
  const { to, outcome, response, subjectReportAsOf: asked } = transition;
  const gives = to === 'resolved' && SUBJECT_REPORT_KINDS.includes(request.kind) && outcome !== undefined && outcome !== 'rejected';
  if (!gives) {
    if (asked !== undefined) throw fieldRefused('subjectReportAsOf', 'only_with_subject_report', 'subjectReportAsOf is only sent to answer an access or portability request in all or part.');
    return null;
  }
  const asOf = asked ?? Math.min(Math.max(response?.sentAt ?? now, request.receiptRecordedAt), now);
  checkSubjectReportAsOf(request, asOf, now, 'subjectReportAsOf');
  return asOf;
}

/**
 * A report stands on the facts recorded by an instant that has passed, and
 * the report answering a request on the ledger as it was once the request
 * was recorded: by then the ledger holds the request and its subject.
 */
export function checkSubjectReportAsOf(request: Pick<RightsRequestState, 'receiptRecordedAt'>, asOf: number, now: number, field: string): void {
  if (asOf > now) throw fieldRefused(field, 'in_the_future', 'The report stands on facts recorded by an instant that has passed.');
  if (asOf < request.receiptRecordedAt) throw fieldRefused(field, 'before_receipt', 'The report answering a request stands on the ledger as it was once the request was recorded, or later.');
}

/**
 * What the service puts into an answer, prepared by the caller before the
 * decision: the digest of the subject's report it gave (access,
 * portability), and where each record stands for erasure (suppression).
 */
export interface AnswerContent {
  subjectReport?: SubjectReportDigest;
  suppression?: SuppressionAssessment;
}

/** Whether an answer assesses the subject's records for erasure: a suppression answered in all or part (decision 0073). */
export function answersWithSuppression(request: Pick<RightsRequestState, 'kind'>, transition: Pick<RightsTransition, 'to' | 'outcome'>): boolean {
  return transition.to === 'resolved' && request.kind === 'suppression' && transition.outcome !== undefined && transition.outcome !== 'rejected';
}

/**
 * One step of a request's life, in the order the law gives it: analysis,
 * at most one extension while the term runs, one resolution, and for an
 * approved block its lifting. Each step happened no earlier than the one
 * before it and no later than now. An answer records what the caller
 * prepared for it (AnswerContent): the digest of the subject's report
 * rendered as of `subjectReportAsOf`, the suppression's assessment made
 * now.
 */
export function decideRightsTransition(request: RightsRequestState | null, transition: RightsTransition, policy: RightsPolicy, now: number, content: AnswerContent = {}): RightsRequestEvent[] {
  if (!request) throw notFound('rights request');
  const { to, occurredAt, reason } = transition;
  if (transition.outcome !== undefined && to !== 'resolved') throw fieldRefused('outcome', 'only_with_resolved', 'outcome is only sent to resolve the request.');
  if (transition.response !== undefined && to !== 'resolved') throw fieldRefused('response', 'only_with_resolved', 'response is only sent to resolve the request.');
  notInTheFuture('occurredAt', occurredAt, policy, now);
  const reportAsOf = subjectReportAsOf(request, transition, now);
  if (occurredAt < request.lastOccurredAt) throw fieldRefused('occurredAt', 'occurred_at_before_previous_fact', 'occurredAt is earlier than the request’s previous fact.');
  const { rightsRequestId } = request;
  const open = request.status === 'received' || request.status === 'in_analysis';

  switch (to) {
    case 'in_analysis':
      if (request.status !== 'received') throw invalidTransition(request, to);
      return [{ type: 'RightsRequestAnalysisStarted', data: { rightsRequestId, startedAt: occurredAt, recordedAt: now } }];

    case 'extended':
      if (!open) throw invalidTransition(request, to);
      if (!isExtensible(request.kind)) throw conflict('rights_request_not_extensible', 'A blocking request is answered within its term; it is not extended.');
      if (request.extended) throw conflict('rights_request_already_extended', 'The term of a request is extended once.');
      if (occurredAt > request.dueAt) throw unprocessable('rights_request_extension_after_due', 'The term can only be extended before it ends.');
      if (!reason) throw fieldRefused('reason', 'required', 'An extension gives its reason.');
      return [
        {
          type: 'RightsRequestExtended',
          data: {
            rightsRequestId,
            extendedAt: occurredAt,
            reason,
            dueAt: rightsRequestDueAt(request.kind, request.receivedAt, true, policy.calendar, policy.deadlines),
            calendarVersion: policy.calendar.version,
            recordedAt: now,
          },
        },
      ];

    case 'resolved': {
      if (!open) throw invalidTransition(request, to);
      const { outcome, response } = transition;
      if (!outcome) throw fieldRefused('outcome', 'required', 'A resolution states its outcome.');
      if (!response) throw fieldRefused('response', 'required', 'A resolution states how and when the answer was sent, and the SHA-256 of what was sent.');
      const refuses = outcome !== 'approved';
      if (refuses && !reason) throw fieldRefused('reason', 'required', 'An answer that refuses all or part of the request gives its reasons.');
      if (response.sentAt < request.receivedAt) throw fieldRefused('response.sentAt', 'sent_before_receipt', 'The answer cannot have been sent before the request was received.');
      notInTheFuture('response.sentAt', response.sentAt, policy, now);
      // The caller prepares what the answer gives; an answer recorded without it would be one nobody could check.
      const { subjectReport, suppression } = content;
      if (reportAsOf !== null && subjectReport?.asOf !== reportAsOf) throw new Error(`an answer to a ${request.kind} request records the subject's report as of ${reportAsOf}`);
      const assessed = answersWithSuppression(request, transition);
      if (assessed && suppression?.assessedAt !== now) throw new Error(`an answer to a suppression records where each record stands for erasure, as of ${now}`);
      return [
        {
          type: 'RightsRequestResolved',
          data: {
            rightsRequestId,
            resolvedAt: occurredAt,
            outcome,
            ...(reason !== undefined ? { reason } : {}),
            response,
            complaintDeadline: refuses ? complaintDeadline(response.sentAt, policy.calendar, policy.deadlines) : null,
            ...(reportAsOf !== null ? { subjectReport: subjectReport! } : {}),
            ...(assessed ? { suppression: suppression! } : {}),
            recordedAt: now,
          },
        },
      ];
    }

    case 'block_lifted':
      if (request.kind !== 'blocking' || request.status !== 'resolved' || request.outcome === 'rejected') throw invalidTransition(request, to);
      return [{ type: 'RightsRequestBlockLifted', data: { rightsRequestId, liftedAt: occurredAt, ...(reason !== undefined ? { reason } : {}), recordedAt: now } }];
  }
}

/** A correction as the bank reports it, its description already sealed under the customer's key. */
export interface Rectification {
  rectificationId: string;
  occurredAt: number;
  record: RectifiedRecord;
  descriptionCiphertext: string;
}

/** The kinds of request a correction answers: a rectification under Ley 21.719, and a REDEC dispute of the data reported. */
export const RECTIFIABLE_KINDS: readonly RightsRequestKind[] = ['rectification', 'redec_dispute'];

/**
 * A correction made for a rectification or a REDEC dispute (decision
 * 0072), recorded as a fact linked to the request: while the request is
 * open, or once answered in all or part (the bank corrects what it said it
 * would), never after a refusal. It happened no earlier than the receipt
 * and no later than now; it is no step of the request's status, so it is
 * not held to the order of those steps. That a named consent is the data
 * subject's is the caller's to check: the consent is not one of the
 * request's facts.
 */
export function decideRectification(request: RightsRequestState | null, rectification: Rectification, policy: RightsPolicy, now: number): RightsRequestRectified[] {
  const rectified = checkRectification(request, rectification, policy, now);
  const { rectificationId, occurredAt, record, descriptionCiphertext } = rectification;
  return [{ type: 'RightsRequestRectified', data: { rightsRequestId: rectified.rightsRequestId, rectificationId, rectifiedAt: occurredAt, record, descriptionCiphertext, recordedAt: now } }];
}

/** The rules decideRectification holds a correction to, before anything is sealed for it: the request it is for. */
export function checkRectification(request: RightsRequestState | null, rectification: Pick<Rectification, 'occurredAt'>, policy: RightsPolicy, now: number): RightsRequestState {
  if (!request) throw notFound('rights request');
  const answeredInFavour = request.status === 'resolved' && request.outcome !== 'rejected';
  const open = request.status === 'received' || request.status === 'in_analysis';
  if (!RECTIFIABLE_KINDS.includes(request.kind) || !(open || answeredInFavour)) throw invalidTransition(request, 'rectified');
  notInTheFuture('occurredAt', rectification.occurredAt, policy, now);
  if (rectification.occurredAt < request.receivedAt) throw fieldRefused('occurredAt', 'occurred_at_before_receipt', 'A correction made for a request comes after its receipt.');
  return request;
}

/** Open past its deadline: an answer is late from the first millisecond after `dueAt`. */
export function isOverdue(request: Pick<RightsRequestState, 'status' | 'dueAt'>, now: number): boolean {
  return (request.status === 'received' || request.status === 'in_analysis') && now > request.dueAt;
}

/**
 * The notice an open request calls for at `now` (decision 0069): `overdue`
 * once past its deadline, `due_soon` from dueSoonFrom until then; each given
 * once for a deadline, so an extension that moves the deadline calls for
 * them again. Nothing for a closed request, nor one already told.
 */
export function decideDeadlineNotice(request: RightsRequestState | null, now: number): RightsRequestDeadlineNoticed[] {
  if (!request || !(request.status === 'received' || request.status === 'in_analysis')) return [];
  const { rightsRequestId, customerId, kind, dueAt } = request;
  const notice: DeadlineNotice | null = isOverdue(request, now) ? 'overdue' : now >= dueSoonFrom(kind, dueAt) ? 'due_soon' : null;
  if (notice === null || request.noticed[notice] === dueAt) return [];
  return [{ type: 'RightsRequestDeadlineNoticed', data: { rightsRequestId, customerId, kind, notice, dueAt, recordedAt: now } }];
}

function notInTheFuture(field: string, instant: number, policy: RightsPolicy, now: number): void {
  if (instant > now + policy.callerClockSkewMs) throw fieldRefused(field, 'in_the_future', `${field} is later than the receipt.`);
}

function invalidTransition(request: RightsRequestState, to: RightsTransitionTarget | 'rectified') {
  return conflict('rights_request_invalid_transition', `A request of kind ${request.kind} that is ${request.status} cannot go to ${to}.`);
}
