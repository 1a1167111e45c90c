import { refusalOf } from '@ledger/platform/testing';
import { ConsentState } from '../consent/consent.state';
import { facts, given, grantedAt, state, validUntil } from '../consent/testing/consent-fixtures';
import { accessRequest } from './testing/access-fixtures';
import { AccessOutcome, AccessRecord, evolveAccess } from './access.events';
import { ProcessingBlocks } from '../rights/processing-blocks';
import { AccessPolicy, accessOutcome, decideAuthorize, decideConfirm } from './access-record.decider';

const DAY = 86_400_000;
const MINUTE = 60_000;
const now = grantedAt + DAY;
const policy: AccessPolicy = { callerClockSkewMs: 5 * MINUTE, authorizationTtlMs: 10 * MINUTE };
const SKEW = policy.callerClockSkewMs;
const request = accessRequest({ reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'op-1', assertedAt: now - 1000 } });
const authorize = (overrides: Partial<Parameters<typeof decideAuthorize>[0]> = {}) =>
  decideAuthorize({ existing: null, consent: state, processingBlocks: null, consentRevision: 0, policy, request, requestSha256: 'sha-1', redecAccessId: 'acc-id', now, ...overrides });
const confirm = (record: AccessRecord | null, outcome: AccessOutcome, at: number, consent: ConsentState = state, blocks: ProcessingBlocks | null = null) => decideConfirm(record, consent, blocks, policy, outcome, at);
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
        data: { redecAccessId: 'acc-id', redecConsentId: 'con-1', request, requestSha256: 'sha-1', status: 'authorized', denyReasonCode: null, decidedAt: now, expiresAt: now + 10 * MINUTE, consentRevision: 4 },
      },
    });
  });

  it('records a denial with its reason, and no consent revision when there is no consent', () => {
    const outcome = authorize({ consent: null, consentRevision: null });
    expect(outcome).toMatchObject({ replayed: false, event: { data: { status: 'denied', denyReasonCode: 'redec_consent_not_found', expiresAt: null, consentRevision: null } } });
  });

  it('answers the same request with the recorded decision, even after the consent changed', () => {
    const first = recorded();
    const revoked = given(facts.revocation(now, true));
    expect(authorize({ existing: first, consent: revoked, now: now + DAY })).toEqual({ replayed: true, decision: first.decision });
  });

  it('refuses the same sourceSystem + sourceReference with a different body', () => {
    expect(refusalOf(() => authorize({ existing: recorded(), requestSha256: 'sha-2' })).code).toBe('redec_access_request_conflict');
  });

  describe("the data subject's blocks (decision 0068)", () => {
    const block = (resolvedAt: number, outcome: 'approved' | 'partially_approved' | 'rejected' = 'approved', blockLiftedAt: number | null = null): ProcessingBlocks => ({
      'rr-1': { kind: 'blocking', outcome, resolvedAt, blockLiftedAt },
    });

    it('deny an access while a block approved in whole or in part is in force, whatever the consent allows', () => {
      for (const outcome of ['approved', 'partially_approved'] as const) {
        expect(authorize({ processingBlocks: block(now, outcome) })).toMatchObject({ event: { data: { status: 'denied', denyReasonCode: 'data_subject_processing_blocked', expiresAt: null } } });
      }
    });

    it('leave it to the consent before the block, after its lifting, and when the block was rejected', () => {
      for (const processingBlocks of [block(now + 1), block(now - DAY, 'approved', now), block(now - DAY, 'rejected')]) {
        expect(authorize({ processingBlocks })).toMatchObject({ event: { data: { status: 'authorized' } } });
      }
    });

    it('leave a request naming no consent of the tenant denied as not found', () => {
      expect(authorize({ consent: null, consentRevision: null, processingBlocks: block(now - DAY) })).toMatchObject({ event: { data: { denyReasonCode: 'redec_consent_not_found' } } });
    });
  });

  it("refuses an assertedAt later than the receipt beyond the profile's caller clock skew", () => {
    const at = (assertedAt: number) => authorize({ request: { ...request, reportingObligation: { ...request.reportingObligation, assertedAt } } });
    expect(at(now + SKEW).replayed).toBe(false);
    expect(refusalOf(() => at(now + SKEW + 1))).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'asserted_at_after_receipt' });
  });
});

describe('confirm', () => {
  const authorized = recorded();

  it('records exactly the outcome kind reported', () => {
    for (const outcome of [{ kind: 'accessed' as const, accessedAt: now + 10 }, { kind: 'failed' as const }, { kind: 'cancelled' as const }]) {
      expect(confirm(authorized, outcome, now + 20)).toEqual({ type: 'AccessConfirmed', data: { redecAccessId: 'acc-id', redecConsentId: 'con-1', outcome, confirmedAt: now + 20 } });
    }
  });

  it('confirms only an authorized access, and only once', () => {
    expect(refusalOf(() => confirm(null, { kind: 'failed' }, now)).code).toBe('NOT_FOUND');
    const denied = recorded(authorize({ consent: null }));
    expect(refusalOf(() => confirm(denied, { kind: 'cancelled' }, now)).code).toBe('redec_access_not_authorized');
    const confirmed = evolveAccess(authorized, confirm(authorized, { kind: 'failed' }, now))!;
    expect(refusalOf(() => confirm(confirmed, { kind: 'failed' }, now)).code).toBe('redec_access_already_confirmed');
  });

  it("bounds accessedAt by the authorization and the receipt, within the profile's caller clock skew", () => {
    const accessed = (accessedAt: number) => () => confirm(authorized, { kind: 'accessed', accessedAt }, now + 1000);
    expect(accessed(now - SKEW)()).toMatchObject({ type: 'AccessConfirmed' });
    expect(accessed(now + 1000 + SKEW)()).toMatchObject({ type: 'AccessConfirmed' });
    expect(refusalOf(accessed(now - SKEW - 1))).toMatchObject({ reason: 'accessed_at_before_authorization', errors: [{ field: 'outcome.accessedAt', reason: 'accessed_at_before_authorization' }] });
    expect(refusalOf(accessed(now + 1001 + SKEW))).toMatchObject({ reason: 'accessed_at_after_receipt' });
  });

  describe('an access after the authorization could no longer be used', () => {
    const expiresAt = authorized.decision.expiresAt!;

    it('is refused once the authorization expired', () => {
      expect(confirm(authorized, { kind: 'accessed', accessedAt: expiresAt }, expiresAt + MINUTE)).toMatchObject({ type: 'AccessConfirmed' });
      expect(refusalOf(() => confirm(authorized, { kind: 'accessed', accessedAt: expiresAt + 1 }, expiresAt + MINUTE))).toMatchObject({ kind: 'conflict', code: 'redec_authorization_expired' });
    });

    it('is refused after a revocation, even one recorded after the decision, or after the window', () => {
      const revokedAt = now + MINUTE;
      const revoked = given(facts.revocation(revokedAt, true));
      expect(confirm(authorized, { kind: 'accessed', accessedAt: revokedAt - 1 }, now + 2 * MINUTE, revoked)).toMatchObject({ type: 'AccessConfirmed' });
      expect(refusalOf(() => confirm(authorized, { kind: 'accessed', accessedAt: revokedAt }, now + 2 * MINUTE, revoked)).code).toBe('redec_authorization_expired');
      const lastMinute = recorded(authorize({ now: validUntil - MINUTE }));
      expect(refusalOf(() => confirm(lastMinute, { kind: 'accessed', accessedAt: validUntil + 1 }, validUntil + MINUTE)).code).toBe('redec_authorization_expired');
    });

    it('is refused after the obligation of a lifecycle access ended', () => {
      const manage = accessRequest({ consentAuthorizationMode: 'credit_lifecycle_extension', accessPurpose: 'manage_existing_obligation', reportingObligation: { ...request.reportingObligation, assertedAt: now } });
      const extended = given(facts.extension('x-op-1', 'op-1', grantedAt + 1000));
      const access = recorded(authorize({ consent: extended, request: manage }));
      const ended = given(facts.extension('x-op-1', 'op-1', grantedAt + 1000), facts.extensionEnded('x-op-1', now + MINUTE));
      expect(confirm(access, { kind: 'accessed', accessedAt: now + MINUTE - 1 }, now + 2 * MINUTE, ended)).toMatchObject({ type: 'AccessConfirmed' });
      expect(refusalOf(() => confirm(access, { kind: 'accessed', accessedAt: now + MINUTE }, now + 2 * MINUTE, ended)).code).toBe('redec_authorization_expired');
    });

    it('judges an access a little before the decision (clock skew) as of the decision', () => {
      const revokedBefore = given(facts.revocation(now - MINUTE, true));
      expect(confirm(authorized, { kind: 'accessed', accessedAt: now - 2 * MINUTE }, now + MINUTE)).toMatchObject({ type: 'AccessConfirmed' });
      expect(refusalOf(() => confirm(authorized, { kind: 'accessed', accessedAt: now - 2 * MINUTE }, now + MINUTE, revokedBefore)).code).toBe('redec_authorization_expired');
    });

    it("is refused once a block of the data subject is in force, even one recorded after the decision", () => {
      const blockedAt = now + MINUTE;
      const blocked: ProcessingBlocks = { 'rr-1': { kind: 'blocking', outcome: 'approved', resolvedAt: blockedAt, blockLiftedAt: null } };
      expect(confirm(authorized, { kind: 'accessed', accessedAt: blockedAt - 1 }, now + 2 * MINUTE, state, blocked)).toMatchObject({ type: 'AccessConfirmed' });
      expect(refusalOf(() => confirm(authorized, { kind: 'accessed', accessedAt: blockedAt }, now + 2 * MINUTE, state, blocked)).code).toBe('redec_authorization_expired');
      expect(confirm(authorized, { kind: 'cancelled' }, now + 2 * MINUTE, state, blocked)).toMatchObject({ type: 'AccessConfirmed' });
    });

    it('still takes `failed` and `cancelled`', () => {
      const revoked = given(facts.revocation(now, true));
      expect(confirm(authorized, { kind: 'failed' }, expiresAt + DAY, revoked)).toMatchObject({ type: 'AccessConfirmed' });
      expect(confirm(authorized, { kind: 'cancelled' }, expiresAt + DAY, revoked)).toMatchObject({ type: 'AccessConfirmed' });
    });
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
