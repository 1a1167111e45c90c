import fc from 'fast-check';
import { DomainError } from '@ledger/platform';
import {
  RIGHTS_DEADLINES,
  RIGHTS_REQUEST_KINDS,
  RIGHTS_REQUEST_OUTCOMES,
  RIGHTS_TRANSITIONS,
  RightsPolicy,
  RightsRequestEvent,
  RightsRequestState,
  RightsTransition,
  bankingCalendar,
  decideDeadlineNotice,
  decideReceiveRightsRequest,
  dueSoonFrom,
  decideRightsTransition,
  evolveRightsRequest,
  rightsRequestDueAt,
  subjectReportAsOf,
  answersWithSuppression,
} from '@ledger/redec';

/**
 * The life of a rights request under random transitions at random instants
 * (some before the previous fact, some later than the clock, some with
 * fields missing or misplaced): whatever the bank reports, what is recorded
 * never has a resolution before the receipt, two extensions, a deadline that
 * moves backwards, or facts out of order; and each transition is accepted
 * exactly when a plain reading of the rules (`allowed`) says it may be.
 * Between the steps, the service's deadline check runs at random later
 * instants: its notices come only for an open request, in their window,
 * once per deadline, and move none of the request's instants.
 */
const RUNS = Math.ceil(Number(process.env.LEDGER_MODEL_RUNS ?? 10_000) / 5);
const SEED = process.env.LEDGER_MODEL_SEED === undefined ? undefined : Number(process.env.LEDGER_MODEL_SEED);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const policy: RightsPolicy = { calendar: bankingCalendar(), deadlines: RIGHTS_DEADLINES, callerClockSkewMs: 5 * 60_000 };
/** 1 December 2026, when Ley 21.719 comes into force. */
const FIRST_RECEIPT = Date.parse('2026-12-01T03:00:00Z');

const step = fc.record({
  to: fc.constantFrom(...RIGHTS_TRANSITIONS),
  /** From the previous fact; sometimes before it. */
  afterPreviousMs: fc.integer({ min: -DAY, max: 20 * DAY }),
  /** From the fact to when it is reported; sometimes "before" it, as a bank clock ahead of the service's. */
  reportedAfterMs: fc.integer({ min: -HOUR, max: 3 * DAY }),
  /** Most steps carry the fields their transition takes; the others whatever was drawn. */
  wellFormed: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
  reason: fc.boolean(),
  outcome: fc.option(fc.constantFrom(...RIGHTS_REQUEST_OUTCOMES), { nil: undefined }),
  response: fc.option(fc.integer({ min: -3 * DAY, max: HOUR }), { nil: undefined }),
  /** When the deadline check runs after the step is reported, if it does before the next one. */
  checkAfterMs: fc.option(fc.integer({ min: 0, max: 40 * DAY }), { nil: undefined }),
});
const scenario = fc.record({
  // Blocking, the one kind with a step after the resolution, comes up more often.
  kind: fc.constantFrom(...RIGHTS_REQUEST_KINDS, 'blocking', 'blocking'),
  // Within the holiday table's years, with room for every step's days after it.
  receivedAfterMs: fc.integer({ min: 0, max: 2 * 365 * DAY }),
  steps: fc.array(step, { minLength: 1, maxLength: 10 }),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** The rules as a bank's privacy officer would read them, independent of the decider's code. */
function allowed(state: RightsRequestState, transition: RightsTransition, now: number): boolean {
  const open = state.status === 'received' || state.status === 'in_analysis';
  const { to, occurredAt, reason, outcome, response } = transition;
  if ((outcome !== undefined || response !== undefined) && to !== 'resolved') return false;
  if (occurredAt > now + policy.callerClockSkewMs || occurredAt < state.lastOccurredAt) return false;
  if (to === 'in_analysis') return state.status === 'received';
  if (to === 'extended') return open && state.kind !== 'blocking' && !state.extended && occurredAt <= state.dueAt && Boolean(reason);
  if (to === 'resolved') {
    if (!open || !outcome || !response) return false;
    if (outcome !== 'approved' && !reason) return false;
    return response.sentAt >= state.receivedAt && response.sentAt <= now + policy.callerClockSkewMs;
  }
  return state.kind === 'blocking' && state.status === 'resolved' && state.outcome !== 'rejected';
}

function toTransition(s: Step, previous: number): RightsTransition {
  const occurredAt = previous + s.afterPreviousMs;
  const resolving = s.to === 'resolved';
  const outcome = s.wellFormed ? (resolving ? (s.outcome ?? 'approved') : undefined) : s.outcome;
  const sentAfter = s.wellFormed ? (resolving ? (s.response ?? 0) : undefined) : s.response;
  const reason = s.wellFormed ? s.to === 'extended' || (outcome !== undefined && outcome !== 'approved') || s.reason : s.reason;
  return {
    to: s.to,
    occurredAt,
    ...(reason ? { reason: 'stated' } : {}),
    ...(outcome ? { outcome } : {}),
    ...(sentAfter !== undefined ? { response: { channel: 'email', sentAt: occurredAt + sentAfter, contentSha256: '0'.repeat(64) } } : {}),
  };
}

describe('the life of a rights request', () => {
  it(`records only what the rules allow, in order, in ${RUNS} random lives`, () => {
    const accepted = new Map<string, number>();
    const noticesGiven = new Map<string, number>();
    fc.assert(
      fc.property(scenario, ({ kind, receivedAfterMs, steps }) => {
        const receivedAt = FIRST_RECEIPT + receivedAfterMs;
        const facts: RightsRequestEvent[] = decideReceiveRightsRequest(
          {
            rightsRequestId: 'rr-1',
            customerId: 'cus-1',
            kind,
            receivedAt,
            channel: 'web',
            sourceSystem: 'crm',
            sourceReference: 'case-1',
            ...(kind === 'redec_dispute' ? { redec: { classification: 'update', reasonCode: '01', operationReference: 'op-1' } } : {}),
          },
          policy,
          receivedAt,
        );
        let state = evolveRightsRequest(null, facts[0])!;
        let clock = receivedAt;
        for (const s of steps) {
          const transition = toTransition(s, state.lastOccurredAt);
          // The service's clock never runs back: a step is never reported before the facts already recorded.
          const now = Math.max(transition.occurredAt + s.reportedAfterMs, clock);
          const expected = allowed(state, transition, now);
          let recorded: RightsRequestEvent[];
          try {
            // As the service does: what an answer gives (the subject's report, a suppression's assessment) is prepared first.
            const reportAsOf = subjectReportAsOf(state, transition, now);
            recorded = decideRightsTransition(state, transition, policy, now, {
              ...(reportAsOf !== null ? { subjectReport: { asOf: reportAsOf, jsonSha256: '1'.repeat(64), pdfSha256: '2'.repeat(64) } } : {}),
              ...(answersWithSuppression(state, transition) ? { suppression: { assessedAt: now, records: [], legalHoldsInForce: [], erasableFrom: now } } : {}),
            });
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            expect({ transition, refused: error.code, allowed: expected }).toEqual({ transition, refused: error.code, allowed: false });
            continue;
          }
          expect({ transition, accepted: true }).toEqual({ transition, accepted: expected });
          accepted.set(transition.to, (accepted.get(transition.to) ?? 0) + 1);
          const next = recorded.reduce<RightsRequestState | null>(evolveRightsRequest, state)!;
          expect(next.dueAt).toBeGreaterThanOrEqual(state.dueAt);
          expect(next.lastOccurredAt).toBeGreaterThanOrEqual(state.lastOccurredAt);
          facts.push(...recorded);
          state = next;
          clock = Math.max(clock, now);
          if (s.checkAfterMs === undefined) continue;
          clock += s.checkAfterMs;
          const open = state.status === 'received' || state.status === 'in_analysis';
          for (const notice of decideDeadlineNotice(state, clock)) {
            expect(open).toBe(true);
            expect(notice.data.dueAt).toBe(state.dueAt);
            if (notice.data.notice === 'overdue') expect(clock).toBeGreaterThan(state.dueAt);
            else expect(clock >= dueSoonFrom(kind, state.dueAt) && clock <= state.dueAt).toBe(true);
            const noticed = evolveRightsRequest(state, notice)!;
            expect([noticed.dueAt, noticed.lastOccurredAt, noticed.status]).toEqual([state.dueAt, state.lastOccurredAt, state.status]);
            facts.push(notice);
            noticesGiven.set(notice.data.notice, (noticesGiven.get(notice.data.notice) ?? 0) + 1);
            state = noticed;
          }
        }
        // Once per deadline each.
        const notices = facts.flatMap((f) => (f.type === 'RightsRequestDeadlineNoticed' ? [`${f.data.notice}@${f.data.dueAt}`] : []));
        expect(new Set(notices).size).toBe(notices.length);
        expect(facts.filter((f) => f.type === 'RightsRequestExtended')).toHaveLength(state.extended ? 1 : 0);
        expect(facts.filter((f) => f.type === 'RightsRequestResolved').length).toBeLessThanOrEqual(1);
        for (const fact of facts) {
          if (fact.type === 'RightsRequestResolved') {
            expect(fact.data.resolvedAt).toBeGreaterThanOrEqual(receivedAt);
            expect(fact.data.response.sentAt).toBeGreaterThanOrEqual(receivedAt);
            expect(fact.data.complaintDeadline === null).toBe(fact.data.outcome === 'approved');
            // The report an answer gives stands on the ledger between the receipt's recording and the answer's.
            expect(fact.data.subjectReport !== undefined).toBe((kind === 'access' || kind === 'portability') && fact.data.outcome !== 'rejected');
            if (fact.data.subjectReport) expect(fact.data.subjectReport.asOf >= state.receiptRecordedAt && fact.data.subjectReport.asOf <= fact.data.recordedAt).toBe(true);
            expect(fact.data.suppression !== undefined).toBe(kind === 'suppression' && fact.data.outcome !== 'rejected');
          }
        }
        expect(state.dueAt).toBe(rightsRequestDueAt(kind, receivedAt, state.extended, policy.calendar, policy.deadlines));
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The lives reach every step: the random transitions are not all refused.
    for (const to of RIGHTS_TRANSITIONS) expect({ to, accepted: (accepted.get(to) ?? 0) > RUNS / 100 }).toEqual({ to, accepted: true });
    for (const notice of ['due_soon', 'overdue']) expect({ notice, given: (noticesGiven.get(notice) ?? 0) > RUNS / 100 }).toEqual({ notice, given: true });
  }, 120_000);
});
