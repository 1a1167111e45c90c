import { specify } from '@ledger/platform/testing';
import { bankingCalendar } from '../calendar/banking-calendar';
import { RIGHTS_DEADLINES } from '../profiles/profile-catalog';
import { ProcessingBlocks, evolveProcessingBlocks, isProcessingBlockFact, processingBlockedAt } from './processing-blocks';
import { AnswerContent, ReceiveRightsRequest, Rectification, RightsPolicy, RightsTransition, decideDeadlineNotice, decideReceiveRightsRequest, decideRectification, decideRightsTransition, isOverdue, subjectReportAsOf, answersWithSuppression } from './rights-request.decider';
import { DeadlineNotice, RightsRequestDeadlineNoticed, RightsRequestEvent, RightsRequestKind, RightsRequestReceived, RightsRequestState, evolveRightsRequest } from './rights-request.events';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const policy: RightsPolicy = { calendar: bankingCalendar(), deadlines: RIGHTS_DEADLINES, callerClockSkewMs: 5 * 60_000 };
/** Tuesday 1 December 2026, 10:00 in Santiago. */
const receivedAt = Date.parse('2026-12-01T13:00:00Z');
/** The end of 31 December 2026 in Santiago: 30 calendar days after the day of receipt. */
const dueAt = Date.parse('2027-01-01T02:59:59.999Z');
const sha = 'a'.repeat(64);

const given = specify<RightsRequestState, RightsRequestEvent>({ evolve: evolveRightsRequest });
const request = (overrides: Partial<ReceiveRightsRequest> = {}): ReceiveRightsRequest => ({
  rightsRequestId: 'rr-1',
  customerId: 'cus-1',
  kind: 'access',
  receivedAt,
  channel: 'branch',
  sourceSystem: 'crm',
  sourceReference: 'case-1',
  ...overrides,
});
const received = (overrides: Partial<ReceiveRightsRequest> = {}): RightsRequestReceived =>
  decideReceiveRightsRequest(request(overrides), policy, receivedAt + HOUR)[0] as RightsRequestReceived;
const receive = (overrides: Partial<ReceiveRightsRequest> = {}, now = receivedAt + HOUR) => () => decideReceiveRightsRequest(request(overrides), policy, now);
/** What the service prepares for an answer, as the transition handler does: the digest of the subject's report, a suppression's assessment. */
const answerContent = (state: RightsRequestState | null, step: RightsTransition, now: number): AnswerContent => {
  const asOf = state && subjectReportAsOf(state, step, now);
  return {
    ...(asOf !== null ? { subjectReport: { asOf, jsonSha256: 'b'.repeat(64), pdfSha256: 'c'.repeat(64) } } : {}),
    ...(state && answersWithSuppression(state, step) ? { suppression: { assessedAt: now, records: [], legalHoldsInForce: [], erasableFrom: now } } : {}),
  };
};
const decide = (state: RightsRequestState | null, step: RightsTransition, now: number) => decideRightsTransition(state, step, policy, now, answerContent(state, step, now));
const transition = (step: RightsTransition, now = step.occurredAt + HOUR) => (state: RightsRequestState | null) => decide(state, step, now);
const analysis = (occurredAt = receivedAt + DAY): RightsTransition => ({ to: 'in_analysis', occurredAt });
const resolution = (overrides: Partial<RightsTransition> = {}): RightsTransition => ({
  to: 'resolved',
  occurredAt: receivedAt + 10 * DAY,
  outcome: 'approved',
  response: { channel: 'email', sentAt: receivedAt + 10 * DAY, contentSha256: sha },
  ...overrides,
});
/** The facts a transition records on top of `facts`, decided an hour after it happened. */
const after = (facts: RightsRequestEvent[], step: RightsTransition) => [...facts, ...decide(facts.reduce<RightsRequestState | null>(evolveRightsRequest, null), step, step.occurredAt + HOUR)];

describe('receiving a rights request', () => {
  it('records the request with its legal deadline and the holiday table it was counted with', () => {
    given()
      .when(receive())
      .then([
        {
          type: 'RightsRequestReceived',
          data: { rightsRequestId: 'rr-1', customerId: 'cus-1', kind: 'access', receivedAt, channel: 'branch', sourceSystem: 'crm', sourceReference: 'case-1', dueAt, calendarVersion: policy.calendar.version, recordedAt: receivedAt + HOUR },
        },
      ]);
  });

  it('gives a blocking request two banking days', () => {
    // Tuesday 1 December: Wednesday 2 is day 1, Thursday 3 day 2.
    given().when(receive({ kind: 'blocking' })).thenMatches([{ data: { dueAt: Date.parse('2026-12-04T02:59:59.999Z') } }]);
  });

  it('keeps a REDEC dispute’s classification, reason and operation reference, and requires them', () => {
    const redec = { classification: 'rectification' as const, reasonCode: '03', operationReference: 'op-9' };
    given().when(receive({ kind: 'redec_dispute', redec })).thenMatches([{ data: { kind: 'redec_dispute', redec } }]);
    given().when(receive({ kind: 'redec_dispute' })).thenRefused('VALIDATION_ERROR', 'required_for_redec_dispute');
    given().when(receive({ kind: 'access', redec })).thenRefused('VALIDATION_ERROR', 'only_with_redec_dispute');
  });

  it('keeps the consents an opposition concerns, each once, and takes them with no other kind (decision 0070)', () => {
    const redecConsentIds = ['con-1', 'con-2'];
    given().when(receive({ kind: 'opposition', redecConsentIds })).thenMatches([{ data: { kind: 'opposition', redecConsentIds } }]);
    given().when(receive({ kind: 'opposition', redecConsentIds: ['con-1', 'con-1'] })).thenRefused('VALIDATION_ERROR', 'duplicate');
    given().when(receive({ kind: 'suppression', redecConsentIds })).thenRefused('VALIDATION_ERROR', 'only_with_opposition');
  });

  it('refuses a receipt later than now, beyond the bank’s clock skew', () => {
    given().when(receive({}, receivedAt - policy.callerClockSkewMs - 1)).thenRefused('VALIDATION_ERROR', 'in_the_future');
    given().when(receive({}, receivedAt - policy.callerClockSkewMs)).thenMatches([{ type: 'RightsRequestReceived' }]);
  });
});

describe('the life of a rights request', () => {
  it('starts its analysis once, after its receipt', () => {
    given(received()).when(transition(analysis())).then([{ type: 'RightsRequestAnalysisStarted', data: { rightsRequestId: 'rr-1', startedAt: receivedAt + DAY, recordedAt: receivedAt + DAY + HOUR } }]);
    given(...after([received()], analysis())).when(transition(analysis(receivedAt + 2 * DAY))).thenRefused('rights_request_invalid_transition');
  });

  it('refuses a fact dated before the previous one, or later than now', () => {
    given(received()).when(transition(analysis(receivedAt - 1))).thenRefused('VALIDATION_ERROR', 'occurred_at_before_previous_fact');
    given(...after([received()], analysis(receivedAt + 3 * DAY))).when(transition(resolution({ occurredAt: receivedAt + 2 * DAY }))).thenRefused('VALIDATION_ERROR', 'occurred_at_before_previous_fact');
    given(received()).when(transition(analysis(receivedAt + DAY), receivedAt + DAY - policy.callerClockSkewMs - 1)).thenRefused('VALIDATION_ERROR', 'in_the_future');
  });

  it('extends the term once, by 30 calendar days, for a reason, while it runs', () => {
    const extension: RightsTransition = { to: 'extended', occurredAt: receivedAt + 20 * DAY, reason: 'volume of records' };
    given(received())
      .when(transition(extension))
      .then([{ type: 'RightsRequestExtended', data: { rightsRequestId: 'rr-1', extendedAt: extension.occurredAt, reason: 'volume of records', dueAt: Date.parse('2027-01-31T02:59:59.999Z'), calendarVersion: policy.calendar.version, recordedAt: extension.occurredAt + HOUR } }]);
    given(...after([received()], extension)).when(transition({ ...extension, occurredAt: receivedAt + 21 * DAY })).thenRefused('rights_request_already_extended');
    given(received()).when(transition({ ...extension, reason: undefined })).thenRefused('VALIDATION_ERROR', 'required');
    given(received()).when(transition({ ...extension, occurredAt: dueAt + 1 })).thenRefused('rights_request_extension_after_due');
    given(received({ kind: 'blocking' })).when(transition({ ...extension, occurredAt: receivedAt + DAY })).thenRefused('rights_request_not_extensible');
  });

  it('resolves once, with the outcome, how and when the answer was sent, and its hash', () => {
    given(received())
      .when(transition(resolution()))
      .then([
        {
          type: 'RightsRequestResolved',
          data: {
            rightsRequestId: 'rr-1',
            resolvedAt: receivedAt + 10 * DAY,
            outcome: 'approved',
            response: { channel: 'email', sentAt: receivedAt + 10 * DAY, contentSha256: sha },
            complaintDeadline: null,
            subjectReport: { asOf: receivedAt + 10 * DAY, jsonSha256: 'b'.repeat(64), pdfSha256: 'c'.repeat(64) },
            recordedAt: receivedAt + 10 * DAY + HOUR,
          },
        },
      ]);
    given(...after([received()], resolution())).when(transition(resolution({ occurredAt: receivedAt + 11 * DAY }))).thenRefused('rights_request_invalid_transition');
    given(...after([received()], resolution())).when(transition({ to: 'extended', occurredAt: receivedAt + 11 * DAY, reason: 'late' })).thenRefused('rights_request_invalid_transition');
    given(received()).when(transition(resolution({ outcome: undefined }))).thenRefused('VALIDATION_ERROR', 'required');
    given(received()).when(transition(resolution({ response: undefined }))).thenRefused('VALIDATION_ERROR', 'required');
    given(received()).when(transition(resolution({ response: { channel: 'email', sentAt: receivedAt - 1, contentSha256: sha } }))).thenRefused('VALIDATION_ERROR', 'sent_before_receipt');
  });

  it('gives a refusal’s reasons and the end of the data subject’s window to complain, in business days after the answer was sent', () => {
    const refusal = resolution({ outcome: 'rejected', reason: 'not the data subject' });
    // Sent Friday 11 December 2026 at 10:00: 30 business days, 25 and 31 December and 1 January among them as they fall, end on Tuesday 26 January 2027.
    given(received()).when(transition(refusal)).thenMatches([{ data: { outcome: 'rejected', reason: 'not the data subject', complaintDeadline: Date.parse('2027-01-27T02:59:59.999Z') } }]);
    given(received()).when(transition({ ...refusal, reason: undefined })).thenRefused('VALIDATION_ERROR', 'required');
    given(received()).when(transition(resolution({ outcome: 'partially_approved', reason: 'some records are held under a legal duty' }))).thenMatches([{ data: { complaintDeadline: Date.parse('2027-01-27T02:59:59.999Z') } }]);
  });

  it('takes an outcome and a response only to resolve', () => {
    given(received()).when(transition({ ...analysis(), outcome: 'approved' })).thenRefused('VALIDATION_ERROR', 'only_with_resolved');
    given(received()).when(transition({ ...analysis(), response: { channel: 'email', sentAt: receivedAt, contentSha256: sha } })).thenRefused('VALIDATION_ERROR', 'only_with_resolved');
  });

  it("records with an answer to access or portability, in all or part, the subject's report it gave, as of the instant named, else when it was sent (decision 0071)", () => {
    const asOf = receivedAt + 9 * DAY;
    given(received()).when(transition(resolution({ subjectReportAsOf: asOf }))).thenMatches([{ data: { subjectReport: { asOf } } }]);
    given(received({ kind: 'portability' })).when(transition(resolution({ outcome: 'partially_approved', reason: 'in part' }))).thenMatches([{ data: { subjectReport: { asOf: receivedAt + 10 * DAY } } }]);
    // Sent before the ledger recorded the request: the report stands from that recording.
    const lateReceipt = received({ receivedAt: receivedAt - 3 * DAY });
    given(lateReceipt).when(transition(resolution({ response: { channel: 'email', sentAt: receivedAt - 2 * DAY, contentSha256: sha } }))).thenMatches([{ data: { subjectReport: { asOf: lateReceipt.data.recordedAt } } }]);
  });

  it("gives no report with a refusal nor to another kind, takes no instant to come nor before the receipt was recorded, and is never recorded without the report's digest", () => {
    given(received()).when(transition(resolution({ outcome: 'rejected', reason: 'no', subjectReportAsOf: receivedAt + DAY }))).thenRefused('VALIDATION_ERROR', 'only_with_subject_report');
    given(received({ kind: 'rectification' })).when(transition(resolution({ subjectReportAsOf: receivedAt + DAY }))).thenRefused('VALIDATION_ERROR', 'only_with_subject_report');
    given(received()).when(transition({ ...analysis(), subjectReportAsOf: receivedAt + DAY })).thenRefused('VALIDATION_ERROR', 'only_with_subject_report');
    const rejected = after([received()], resolution({ outcome: 'rejected', reason: 'no' }));
    expect(rejected[1].type === 'RightsRequestResolved' && 'subjectReport' in rejected[1].data).toBe(false);
    const now = receivedAt + 10 * DAY + HOUR;
    given(received()).when(transition(resolution({ subjectReportAsOf: now + 1 }), now)).thenRefused('VALIDATION_ERROR', 'in_the_future');
    given(received()).when(transition(resolution({ subjectReportAsOf: receivedAt + HOUR - 1 }))).thenRefused('VALIDATION_ERROR', 'before_receipt');
    const open = evolveRightsRequest(null, received())!;
    expect(() => decideRightsTransition(open, resolution(), policy, receivedAt + 11 * DAY)).toThrow("records the subject's report");
  });

  it('records with a suppression answered in all or part where each record stands for erasure, assessed at the answer, and none with a refusal (decision 0073)', () => {
    const now = receivedAt + 10 * DAY + HOUR;
    const assessment = { assessedAt: now, records: [], legalHoldsInForce: [], erasableFrom: now };
    given(received({ kind: 'suppression' })).when(transition(resolution(), now)).thenMatches([{ data: { suppression: assessment } }]);
    const rejected = after([received({ kind: 'suppression' })], resolution({ outcome: 'rejected', reason: 'obligación legal de conservar' }));
    expect(rejected[1].type === 'RightsRequestResolved' && 'suppression' in rejected[1].data).toBe(false);
    const open = evolveRightsRequest(null, received({ kind: 'suppression' }))!;
    expect(() => decideRightsTransition(open, resolution(), policy, now)).toThrow('records where each record stands for erasure');
    expect(() => decideRightsTransition(open, resolution(), policy, now, { suppression: { ...assessment, assessedAt: now - 1 } })).toThrow('records where each record stands for erasure');
  });

  it('refuses any transition of a request it does not hold', () => {
    given().when(transition(analysis())).thenRefused('NOT_FOUND');
  });
});

describe('blocking', () => {
  const block = received({ kind: 'blocking' });
  const approval = resolution({ occurredAt: receivedAt + DAY, response: { channel: 'email', sentAt: receivedAt + DAY, contentSha256: sha } });
  const lifting: RightsTransition = { to: 'block_lifted', occurredAt: receivedAt + 40 * DAY, reason: 'the data subject withdrew it' };
  /** What authorize reads: the facts recorded in the data subject's stream of blocks, folded. */
  const blocksOf = (...requests: RightsRequestEvent[][]) =>
    requests.flat().filter((fact) => isProcessingBlockFact('blocking', fact)).reduce<ProcessingBlocks | null>((state, fact) => evolveProcessingBlocks(state, fact as never), null);

  it('is in force from its approval until it is lifted', () => {
    const approved = after([block], approval);
    expect(processingBlockedAt(blocksOf([block]), receivedAt + 2 * DAY)).toBe(false);
    expect(processingBlockedAt(blocksOf(approved), receivedAt + DAY - 1)).toBe(false);
    expect(processingBlockedAt(blocksOf(approved), receivedAt + DAY)).toBe(true);
    const lifted = after(approved, lifting);
    expect(processingBlockedAt(blocksOf(lifted), lifting.occurredAt - 1)).toBe(true);
    expect(processingBlockedAt(blocksOf(lifted), lifting.occurredAt)).toBe(false);
  });

  it('is never in force when rejected, and only an approved block is lifted, once', () => {
    const rejected = after([block], { ...approval, outcome: 'rejected', reason: 'no grounds' });
    expect(processingBlockedAt(blocksOf(rejected), receivedAt + 2 * DAY)).toBe(false);
    given(...rejected).when(transition(lifting)).thenRefused('rights_request_invalid_transition');
    given(block).when(transition(lifting)).thenRefused('rights_request_invalid_transition');
    given(...after(after([block], approval), lifting)).when(transition({ ...lifting, occurredAt: lifting.occurredAt + DAY })).thenRefused('rights_request_invalid_transition');
    given(...after([received()], resolution())).when(transition(lifting)).thenRefused('rights_request_invalid_transition');
  });

  it('keeps a subject blocked while any one of their blocks is in force, whichever was lifted', () => {
    const other = decideReceiveRightsRequest(request({ kind: 'blocking', rightsRequestId: 'rr-2', receivedAt: receivedAt + 5 * DAY }), policy, receivedAt + 5 * DAY)[0];
    const first = after(after([block], approval), lifting);
    const second = after([other], { ...approval, occurredAt: receivedAt + 6 * DAY, response: { channel: 'email', sentAt: receivedAt + 6 * DAY, contentSha256: sha } });
    expect(processingBlockedAt(blocksOf(first, second), lifting.occurredAt + DAY)).toBe(true);
    expect(processingBlockedAt(blocksOf(first), lifting.occurredAt + DAY)).toBe(false);
  });

  it("records in the subject's stream of blocks only a blocking request's resolution and lifting", () => {
    const approved = after([block], approval);
    expect(approved.map((fact) => isProcessingBlockFact('blocking', fact))).toEqual([false, true]);
    expect(after([received()], resolution()).map((fact) => isProcessingBlockFact('access', fact))).toEqual([false, false]);
    expect(after([block], analysis()).map((fact) => isProcessingBlockFact('blocking', fact))).toEqual([false, false]);
  });
});

describe('corrections (decision 0072)', () => {
  const correction = (overrides: Partial<Rectification> = {}): Rectification => ({
    rectificationId: 'rec-1',
    occurredAt: receivedAt + 5 * DAY,
    record: { kind: 'bank_record', sourceSystem: 'core-crm', sourceReference: 'address-7' },
    descriptionCiphertext: 'sealed',
    ...overrides,
  });
  const rectify = (rectification: Rectification, now = rectification.occurredAt + HOUR) => (state: RightsRequestState | null) => decideRectification(state, rectification, policy, now);

  it('records a correction for a rectification or a REDEC dispute, linked to the request, moving none of its instants', () => {
    given(received({ kind: 'rectification' }))
      .when(rectify(correction()))
      .then([
        {
          type: 'RightsRequestRectified',
          data: { rightsRequestId: 'rr-1', rectificationId: 'rec-1', rectifiedAt: receivedAt + 5 * DAY, record: correction().record, descriptionCiphertext: 'sealed', recordedAt: receivedAt + 5 * DAY + HOUR },
        },
      ]);
    const redec = { classification: 'rectification' as const, reasonCode: '03', operationReference: 'op-9' };
    given(received({ kind: 'redec_dispute', redec })).when(rectify(correction({ record: { kind: 'customer' } }))).thenMatches([{ type: 'RightsRequestRectified' }]);
    const before = evolveRightsRequest(null, received({ kind: 'rectification' }))!;
    expect(decideRectification(before, correction(), policy, receivedAt + 6 * DAY).reduce<RightsRequestState | null>(evolveRightsRequest, before)).toEqual(before);
  });

  it('takes one while the request is open or once answered in all or part, never after a refusal, nor for another kind', () => {
    const rectification = received({ kind: 'rectification' });
    const answered = after([rectification], resolution({ outcome: 'partially_approved', reason: 'in part' }));
    // A correction made before the answer was recorded is still taken: it is no step of the request's status.
    given(...answered).when(rectify(correction({ occurredAt: receivedAt + 2 * DAY }), receivedAt + 12 * DAY)).thenMatches([{ data: { rectifiedAt: receivedAt + 2 * DAY } }]);
    given(...after([rectification], resolution({ outcome: 'rejected', reason: 'correct as held' }))).when(rectify(correction(), receivedAt + 12 * DAY)).thenRefused('rights_request_invalid_transition');
    given(received({ kind: 'access' })).when(rectify(correction())).thenRefused('rights_request_invalid_transition');
    given().when(rectify(correction())).thenRefused('NOT_FOUND');
  });

  it('refuses one made before the receipt, or later than now', () => {
    given(received({ kind: 'rectification' })).when(rectify(correction({ occurredAt: receivedAt - 1 }))).thenRefused('VALIDATION_ERROR', 'occurred_at_before_receipt');
    given(received({ kind: 'rectification' })).when(rectify(correction(), receivedAt + 5 * DAY - policy.callerClockSkewMs - 1)).thenRefused('VALIDATION_ERROR', 'in_the_future');
  });
});

describe('an overdue request', () => {
  it('is one still open after the last millisecond of its term', () => {
    const open = evolveRightsRequest(null, received())!;
    expect(isOverdue(open, dueAt)).toBe(false);
    expect(isOverdue(open, dueAt + 1)).toBe(true);
    expect(isOverdue(evolveRightsRequest(open, decide(open, resolution(), receivedAt + 11 * DAY)[0])!, dueAt + 1)).toBe(false);
  });
});

describe('deadline notices (decision 0069)', () => {
  const notice = (now: number) => (state: RightsRequestState | null) => decideDeadlineNotice(state, now);
  const noticed = (kind: RightsRequestKind, notice: DeadlineNotice, due: number, now: number): RightsRequestDeadlineNoticed => ({
    type: 'RightsRequestDeadlineNoticed',
    data: { rightsRequestId: 'rr-1', customerId: 'cus-1', kind, notice, dueAt: due, recordedAt: now },
  });
  /** The facts a notice records on top of `facts`, decided at `now`. */
  const noticedOn = (facts: RightsRequestEvent[], now: number) => [...facts, ...decideDeadlineNotice(facts.reduce<RightsRequestState | null>(evolveRightsRequest, null), now)];

  it('announces an open request due soon from 5 days before its deadline, then overdue from the first millisecond after it, each once', () => {
    given(received()).when(notice(dueAt - 5 * DAY - 1)).then([]);
    given(received()).when(notice(dueAt - 5 * DAY)).then([noticed('access', 'due_soon', dueAt, dueAt - 5 * DAY)]);
    const dueSoon = noticedOn([received()], dueAt - 5 * DAY);
    given(...dueSoon).when(notice(dueAt)).then([]);
    given(...dueSoon).when(notice(dueAt + 1)).then([noticed('access', 'overdue', dueAt, dueAt + 1)]);
    given(...noticedOn(dueSoon, dueAt + 1)).when(notice(dueAt + DAY)).then([]);
  });

  it('announces a request first seen past its deadline as overdue only', () => {
    given(received()).when(notice(dueAt + DAY)).then([noticed('access', 'overdue', dueAt, dueAt + DAY)]);
  });

  it('announces again for the deadline an extension moved', () => {
    const extension: RightsTransition = { to: 'extended', occurredAt: dueAt - 4 * DAY, reason: 'volume of records' };
    const extended = after(noticedOn([received()], dueAt - 5 * DAY), extension);
    const newDueAt = Date.parse('2027-01-31T02:59:59.999Z');
    given(...extended).when(notice(dueAt + 1)).then([]);
    given(...extended).when(notice(newDueAt - 5 * DAY)).then([noticed('access', 'due_soon', newDueAt, newDueAt - 5 * DAY)]);
  });

  it('gives a blocking request, whose term is 2 banking days, its notice 1 day before', () => {
    const blockDueAt = received({ kind: 'blocking' }).data.dueAt;
    given(received({ kind: 'blocking' })).when(notice(blockDueAt - DAY - 1)).then([]);
    given(received({ kind: 'blocking' })).when(notice(blockDueAt - DAY)).then([noticed('blocking', 'due_soon', blockDueAt, blockDueAt - DAY)]);
  });

  it('announces nothing for an answered request, however late', () => {
    given(...after([received()], resolution())).when(notice(dueAt + 10 * DAY)).then([]);
  });

  it("moves none of the request's instants: a step dated before the notice is still taken", () => {
    const late = noticedOn([received()], dueAt + DAY);
    given(...late).when(transition(resolution({ occurredAt: dueAt - DAY, response: { channel: 'email', sentAt: dueAt - DAY, contentSha256: sha } }), dueAt + 2 * DAY)).then([
      expect.objectContaining({ type: 'RightsRequestResolved' }) as never,
    ]);
  });
});
