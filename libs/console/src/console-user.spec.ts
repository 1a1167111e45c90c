import { DomainError } from '@ledger/platform';
import {
  ConsoleUser,
  ConsoleUserEvent,
  LOCK_OUT,
  SESSION_LIFETIME_MS,
  STEP_LIFETIME_MS,
  decideChangePassword,
  decideCreateConsoleUser,
  decideResetConsoleUser,
  decidePasswordAttempt,
  decideSecondFactor,
  decideSignOut,
  evolveConsoleUser,
  isOpenSession,
  nextStep,
} from './console-user';

const NOW = 1_800_000_000_000;
const fold = (events: ConsoleUserEvent[], state: ConsoleUser | null = null) => events.reduce(evolveConsoleUser, state);
const created = (): ConsoleUser =>
  fold(decideCreateConsoleUser(null, { userId: 'u-1', tenantId: 't-1', tenantExists: true, email: ' Ana@Bank.CL ', role: 'operator', passwordHash: 'h-0', now: NOW }))!;

/** The user after a right password at `now`, with the step `step` open. */
const verified = (user: ConsoleUser, step: string, now = NOW) => fold(decidePasswordAttempt(user, { matches: true, stepSha256: step, now }), user)!;

function refusal(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('console user', () => {
  it('is created for an existing tenant with a role, its email kept trimmed and in lower case', () => {
    expect(created()).toMatchObject({ userId: 'u-1', tenantId: 't-1', email: 'ana@bank.cl', role: 'operator', mustChangePassword: true, encryptedTotpSecret: null });
    const input = { userId: 'u-2', tenantId: 't-1', tenantExists: true, email: 'b@bank.cl', role: 'viewer', passwordHash: 'h', now: NOW };
    expect(refusal(() => decideCreateConsoleUser(created(), input)).code).toBe('console_user_exists');
    expect(refusal(() => decideCreateConsoleUser(null, { ...input, tenantExists: false })).kind).toBe('not_found');
    expect(refusal(() => decideCreateConsoleUser(null, { ...input, role: 'admin' })).errors).toEqual([{ field: 'role', reason: 'invalid_value' }]);
    expect(refusal(() => decideCreateConsoleUser(null, { ...input, email: 'not an email' })).errors).toEqual([{ field: 'email', reason: 'invalid_format' }]);
  });

  it('records each wrong password, and locks the user at the fifth in a row, refusing even the right one until the lock ends', () => {
    let user = created();
    for (let i = 1; i < LOCK_OUT.failures; i++) {
      const facts = decidePasswordAttempt(user, { matches: false, stepSha256: 's', now: NOW + i });
      expect(facts.map((fact) => fact.type)).toEqual(['ConsoleSignInFailed']);
      user = fold(facts, user)!;
    }
    const fifth = decidePasswordAttempt(user, { matches: false, stepSha256: 's', now: NOW + 10 });
    expect(fifth).toEqual([
      { type: 'ConsoleSignInFailed', data: { factor: 'password', failedAt: NOW + 10 } },
      { type: 'ConsoleUserLocked', data: { lockedAt: NOW + 10, lockedUntil: NOW + 10 + LOCK_OUT.durationMs } },
    ]);
    user = fold(fifth, user)!;
    const locked = refusal(() => decidePasswordAttempt(user, { matches: true, stepSha256: 's', now: NOW + 10 + LOCK_OUT.durationMs - 1000 }));
    expect(locked).toMatchObject({ kind: 'rate_limited', code: 'console_user_locked', retryAfterSeconds: 1 });
    // The lock ends, and the count starts again from nothing.
    expect(decidePasswordAttempt(user, { matches: false, stepSha256: 's', now: NOW + 10 + LOCK_OUT.durationMs })).toHaveLength(1);
    expect(verified(user, 's', NOW + 10 + LOCK_OUT.durationMs).steps).toEqual({ s: NOW + 10 + LOCK_OUT.durationMs + STEP_LIFETIME_MS });
  });

  it("lifts a lock and ends every session and step at an operator's reset, asking for a new password and a new enrolment", () => {
    let user = created();
    user = fold(decideChangePassword(verified(user, 'a'), { stepSha256: 'a', newPassword: 'a long enough secret', newPasswordHash: 'h', now: NOW }), verified(user, 'a'))!;
    user = fold(decideSecondFactor(user, { stepSha256: 'a', matchedCounter: 1, sessionSha256: 's-1', now: NOW, enrolledSecret: 'e' }), user)!;
    for (let i = 0; i < LOCK_OUT.failures; i++) user = fold(decidePasswordAttempt(user, { matches: false, stepSha256: 'x', now: NOW + i }), user)!;
    expect(user.lockedUntil).not.toBeNull();
    user = fold(decideResetConsoleUser(user, { passwordHash: 'h-reset', now: NOW + 10 }), user)!;
    expect(user).toMatchObject({ passwordHash: 'h-reset', mustChangePassword: true, encryptedTotpSecret: null, lockedUntil: null, failuresInARow: 0, steps: {}, sessions: {} });
    expect(nextStep(verified(user, 'b', NOW + 11))).toBe('change_password');
    expect(refusal(() => decideResetConsoleUser(null, { passwordHash: 'h', now: NOW })).kind).toBe('not_found');
  });

  it('refuses an unknown user as a wrong password is refused', () => {
    expect(refusal(() => decidePasswordAttempt(null, { matches: true, stepSha256: 's', now: NOW })).kind).toBe('unauthenticated');
  });

  it('asks for a new password at the first sign-in, then for the authenticator app, then for its code', () => {
    let user = verified(created(), 'step-1');
    expect(nextStep(user)).toBe('change_password');
    expect(refusal(() => decideChangePassword(user, { stepSha256: 'step-1', newPassword: 'too short', newPasswordHash: 'h-1', now: NOW })).errors).toEqual([
      { field: 'newPassword', reason: 'invalid_length' },
    ]);
    user = fold(decideChangePassword(user, { stepSha256: 'step-1', newPassword: 'a long enough secret', newPasswordHash: 'h-1', now: NOW }), user)!;
    expect(user).toMatchObject({ passwordHash: 'h-1', mustChangePassword: false });
    expect(nextStep(user)).toBe('enrol_totp');
    // The enrolment's code without the secret being enrolled is another step's.
    expect(refusal(() => decideSecondFactor(user, { stepSha256: 'step-1', matchedCounter: 7, sessionSha256: 'session-1', now: NOW })).code).toBe('sign_in_step_not_due');
    const enrolled = decideSecondFactor(user, { stepSha256: 'step-1', matchedCounter: 7, sessionSha256: 'session-1', now: NOW, enrolledSecret: 'encrypted' });
    expect(enrolled.map((fact) => fact.type)).toEqual(['ConsoleTotpEnrolled', 'ConsoleSignedIn']);
    user = fold(enrolled, user)!;
    expect(nextStep(user)).toBe('totp');
    expect(user.steps).toEqual({});
    expect(isOpenSession(user, 'session-1', NOW + SESSION_LIFETIME_MS - 1)).toBe(true);
    expect(isOpenSession(user, 'session-1', NOW + SESSION_LIFETIME_MS)).toBe(false);
  });

  it('refuses a step that has ended, or that was never opened', () => {
    const user = verified(fold(decideChangePassword(verified(created(), 'a'), { stepSha256: 'a', newPassword: 'a long enough secret', newPasswordHash: 'h', now: NOW }), verified(created(), 'a'))!, 'b');
    expect(refusal(() => decideSecondFactor(user, { stepSha256: 'b', matchedCounter: 1, sessionSha256: 's', now: NOW + STEP_LIFETIME_MS, enrolledSecret: 'e' })).kind).toBe('unauthenticated');
    expect(refusal(() => decideSecondFactor(user, { stepSha256: 'c', matchedCounter: 1, sessionSha256: 's', now: NOW, enrolledSecret: 'e' })).kind).toBe('unauthenticated');
  });

  it('counts a wrong or spent code as a failure towards the lock', () => {
    let user = created();
    user = fold(decideChangePassword(verified(user, 'a'), { stepSha256: 'a', newPassword: 'a long enough secret', newPasswordHash: 'h', now: NOW }), verified(user, 'a'))!;
    user = fold(decideSecondFactor(user, { stepSha256: 'a', matchedCounter: 100, sessionSha256: 's-1', now: NOW, enrolledSecret: 'e' }), user)!;
    user = verified(user, 'b');
    const spent = decideSecondFactor(user, { stepSha256: 'b', matchedCounter: 100, sessionSha256: 's-2', now: NOW });
    expect(spent).toEqual([{ type: 'ConsoleSignInFailed', data: { factor: 'totp', failedAt: NOW } }]);
    expect(decideSecondFactor(user, { stepSha256: 'b', matchedCounter: null, sessionSha256: 's-2', now: NOW })).toEqual(spent);
    expect(decideSecondFactor(user, { stepSha256: 'b', matchedCounter: 101, sessionSha256: 's-2', now: NOW }).map((fact) => fact.type)).toEqual(['ConsoleSignedIn']);
  });

  it('signs a session out once, and an ended session needs no signing out', () => {
    let user = created();
    user = fold(decideChangePassword(verified(user, 'a'), { stepSha256: 'a', newPassword: 'a long enough secret', newPasswordHash: 'h', now: NOW }), verified(user, 'a'))!;
    user = fold(decideSecondFactor(user, { stepSha256: 'a', matchedCounter: 1, sessionSha256: 's-1', now: NOW, enrolledSecret: 'e' }), user)!;
    const out = decideSignOut(user, 's-1', NOW + 1);
    expect(out).toEqual([{ type: 'ConsoleSignedOut', data: { sessionSha256: 's-1', signedOutAt: NOW + 1 } }]);
    expect(decideSignOut(fold(out, user)!, 's-1', NOW + 2)).toEqual([]);
    expect(decideSignOut(user, 's-1', NOW + SESSION_LIFETIME_MS)).toEqual([]);
  });

  it('forgets ended sessions when a later one begins, so a long-lived user stays small', () => {
    let user = created();
    user = fold(decideChangePassword(verified(user, 'a'), { stepSha256: 'a', newPassword: 'a long enough secret', newPasswordHash: 'h', now: NOW }), verified(user, 'a'))!;
    user = fold(decideSecondFactor(user, { stepSha256: 'a', matchedCounter: 1, sessionSha256: 's-1', now: NOW, enrolledSecret: 'e' }), user)!;
    const later = NOW + SESSION_LIFETIME_MS + 1;
    user = verified(user, 'b', later);
    user = fold(decideSecondFactor(user, { stepSha256: 'b', matchedCounter: 2, sessionSha256: 's-2', now: later }), user)!;
    expect(Object.keys(user.sessions)).toEqual(['s-2']);
  });
});
