import { refusalOf } from '@ledger/platform/testing';
import { facts, given, grantedAt, state } from '../consent/testing/consent-fixtures';
import { accessRequest } from './testing/access-fixtures';
import { AccessRecord, evolveAccess } from './access.events';
import { CALLER_CLOCK_TOLERANCE_MS, accessOutcome, decideAuthorize, decideConfirm } from './access-record.decider';

const DAY = 86_400_000;
const now = grantedAt + DAY;
const request = accessRequest({ reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'op-1', assertedAt: now - 1000 } });
const authorize = (overrides: Partial<Parameters<typeof decideAuthorize>[0]> = {}) =>
  decideAuthorize({ existing: null, consent: state, consentRevision: 0, request, requestSha256: 'sha-1', redecAccessId: 'acc-id', now, ...overrides });
const recorded = (outcome = authorize()): AccessRecord => {
  if (outcome.replayed) throw new Error('expected a new decision');
  return evolveAccess(null, outcome.event)!;
};

describe('authorize: the decision as a fact', () => {
  it('records the request, the decision, the instant and the consent revision it was decided on', () => {
    expect(authorize({ consentRevision: 4 })).toEqual({
      replayed: false,
      event: {
        type: 'AccessDecided',
        data: { redecAccessId: 'acc-id', redecConsentId: 'con-1', request, requestSha256: 'sha-1', status: 'authorized', denyReasonCode: null, decidedAt: now, consentRevision: 4 },
      },
    });
  });

  it('records a denial with its reason, and no consent revision when there is no consent', () => {
    const outcome = authorize({ consent: null, consentRevision: null });
    expect(outcome).toMatchObject({ replayed: false, event: { data: { status: 'denied', denyReasonCode: 'redec_consent_not_found', consentRevision: null } } });
  });

  it('answers the same request with the recorded decision, even after the consent changed', () => {
    const first = recorded();
    const revoked = given(facts.revocation(now, true));
    expect(authorize({ existing: first, consent: revoked, now: now + DAY })).toEqual({ replayed: true, decision: first.decision });
  });

  it('refuses the same sourceSystem + sourceReference with a different body', () => {
    expect(refusalOf(() => authorize({ existing: recorded(), requestSha256: 'sha-2' })).code).toBe('redec_access_request_conflict');
  });

  it('refuses an assertedAt later than the receipt beyond the caller clock tolerance', () => {
    const at = (assertedAt: number) => authorize({ request: { ...request, reportingObligation: { ...request.reportingObligation, assertedAt } } });
    expect(at(now + CALLER_CLOCK_TOLERANCE_MS).replayed).toBe(false);
    expect(refusalOf(() => at(now + CALLER_CLOCK_TOLERANCE_MS + 1))).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'asserted_at_after_receipt' });
  });
});

describe('confirm', () => {
  const authorized = recorded();

  it('records exactly the outcome kind reported', () => {
    for (const outcome of [{ kind: 'accessed' as const, accessedAt: now + 10 }, { kind: 'failed' as const }, { kind: 'cancelled' as const }]) {
      expect(decideConfirm(authorized, outcome, now + 20)).toEqual({ type: 'AccessConfirmed', data: { redecAccessId: 'acc-id', redecConsentId: 'con-1', outcome, confirmedAt: now + 20 } });
    }
  });

  it('confirms only an authorized access, and only once', () => {
    expect(refusalOf(() => decideConfirm(null, { kind: 'failed' }, now)).code).toBe('NOT_FOUND');
    const denied = recorded(authorize({ consent: null }));
    expect(refusalOf(() => decideConfirm(denied, { kind: 'cancelled' }, now)).code).toBe('redec_access_not_authorized');
    const confirmed = evolveAccess(authorized, decideConfirm(authorized, { kind: 'failed' }, now))!;
    expect(refusalOf(() => decideConfirm(confirmed, { kind: 'failed' }, now)).code).toBe('redec_access_already_confirmed');
  });

  it('bounds accessedAt by the authorization and the receipt, within the caller clock tolerance', () => {
    const accessed = (accessedAt: number) => () => decideConfirm(authorized, { kind: 'accessed', accessedAt }, now + 1000);
    expect(accessed(now - CALLER_CLOCK_TOLERANCE_MS)()).toMatchObject({ type: 'AccessConfirmed' });
    expect(accessed(now + 1000 + CALLER_CLOCK_TOLERANCE_MS)()).toMatchObject({ type: 'AccessConfirmed' });
    expect(refusalOf(accessed(now - CALLER_CLOCK_TOLERANCE_MS - 1))).toMatchObject({ reason: 'accessed_at_before_authorization', errors: [{ field: 'outcome.accessedAt', reason: 'accessed_at_before_authorization' }] });
    expect(refusalOf(accessed(now + 1001 + CALLER_CLOCK_TOLERANCE_MS))).toMatchObject({ reason: 'accessed_at_after_receipt' });
  });
});

describe('the outcome reported', () => {
  it('takes accessedAt with `accessed` only, and requires it there', () => {
    expect(accessOutcome({ kind: 'accessed', accessedAt: 5 })).toEqual({ kind: 'accessed', accessedAt: 5 });
    expect(accessOutcome({ kind: 'failed' })).toEqual({ kind: 'failed' });
    expect(accessOutcome({ kind: 'cancelled' })).toEqual({ kind: 'cancelled' });
    expect(refusalOf(() => accessOutcome({ kind: 'accessed' })).errors).toEqual([{ field: 'outcome.accessedAt', reason: 'required' }]);
    expect(refusalOf(() => accessOutcome({ kind: 'failed', accessedAt: 5 })).errors).toEqual([{ field: 'outcome.accessedAt', reason: 'only_with_accessed' }]);
  });
});
