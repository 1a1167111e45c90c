import { DomainError, conflict, notFound, unauthenticated, validationError } from '@ledger/platform';
import { PASSWORD_LENGTH } from './passwords';
import { ConsoleRole, isConsoleRole } from './roles';

/*
 * A person who signs in to the console: issued by an operator for one tenant
 * with a role, signed in with a password and a TOTP code. Every step of a
 * sign-in is a fact of the user's stream, so the ledger says who signed in,
 * when, and who failed. Secrets never enter a fact: passwords as scrypt
 * hashes, session and step secrets as SHA-256, the TOTP secret encrypted
 * under the tenant's key.
 */

export interface ConsoleUserCreated {
  type: 'ConsoleUserCreated';
  data: { userId: string; tenantId: string; email: string; role: ConsoleRole; passwordHash: string; createdAt: number };
}
/** The password was right: the first factor passed, a step that may only finish this sign-in, until `expiresAt`. */
export interface ConsolePasswordVerified {
  type: 'ConsolePasswordVerified';
  data: { stepSha256: string; verifiedAt: number; expiresAt: number };
}
export interface ConsoleSignInFailed {
  type: 'ConsoleSignInFailed';
  data: { factor: SignInFactor; failedAt: number };
}
/** Too many failures in a row: no sign-in is tried until `lockedUntil`. */
export interface ConsoleUserLocked {
  type: 'ConsoleUserLocked';
  data: { lockedAt: number; lockedUntil: number };
}
export interface ConsolePasswordChanged {
  type: 'ConsolePasswordChanged';
  data: { passwordHash: string; changedAt: number };
}
/** The first code from the authenticator app, proving it holds the secret. */
export interface ConsoleTotpEnrolled {
  type: 'ConsoleTotpEnrolled';
  data: { encryptedSecret: string; enrolledAt: number };
}
/** Both factors passed: a session until `expiresAt`, or until signed out. `totpCounter` is the code's time step, never accepted again. */
export interface ConsoleSignedIn {
  type: 'ConsoleSignedIn';
  data: { stepSha256: string; sessionSha256: string; totpCounter: number; signedInAt: number; expiresAt: number };
}
export interface ConsoleSignedOut {
  type: 'ConsoleSignedOut';
  data: { sessionSha256: string; signedOutAt: number };
}
/**
 * An operator gave the person a new initial password (a forgotten password,
 * a lost authenticator app): every session and step ends, the lock lifts,
 * and the next sign-in asks for a new password and a new enrolment.
 */
export interface ConsoleUserReset {
  type: 'ConsoleUserReset';
  data: { passwordHash: string; resetAt: number };
}
export type ConsoleUserEvent =
  | ConsoleUserCreated
  | ConsolePasswordVerified
  | ConsoleSignInFailed
  | ConsoleUserLocked
  | ConsolePasswordChanged
  | ConsoleTotpEnrolled
  | ConsoleSignedIn
  | ConsoleSignedOut
  | ConsoleUserReset;

export type SignInFactor = 'password' | 'totp';

export interface ConsoleUser {
  userId: string;
  tenantId: string;
  email: string;
  role: ConsoleRole;
  passwordHash: string;
  /** Until the first change, the password is the one the operator was shown. */
  mustChangePassword: boolean;
  /** Null until enrolled. */
  encryptedTotpSecret: string | null;
  /** The last TOTP time step accepted: a code of it or an earlier one is refused, so a code seen over a shoulder is spent. */
  lastTotpCounter: number;
  /** Failures since the last sign-in or lock. */
  failuresInARow: number;
  lockedUntil: number | null;
  /** Steps between the two factors, by the SHA-256 of their secret: when each ends. */
  steps: Readonly<Record<string, number>>;
  /** Open sessions, by the SHA-256 of their secret: when each ends. */
  sessions: Readonly<Record<string, number>>;
}

/** Failures in a row that lock a user, and for how long: five guesses per quarter of an hour. */
export const LOCK_OUT = { failures: 5, durationMs: 15 * 60_000 } as const;
/** How long the step between the password and the code lasts. */
export const STEP_LIFETIME_MS = 5 * 60_000;
/** A session lasts a working day, then the person signs in again. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60_000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email as the console keys it: trimmed and in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function evolveConsoleUser(state: ConsoleUser | null, event: ConsoleUserEvent): ConsoleUser | null {
  if (event.type === 'ConsoleUserCreated') {
    const { userId, tenantId, email, role, passwordHash } = event.data;
    return { userId, tenantId, email, role, passwordHash, mustChangePassword: true, encryptedTotpSecret: null, lastTotpCounter: -1, failuresInARow: 0, lockedUntil: null, steps: {}, sessions: {} };
  }
  if (!state) return state;
  switch (event.type) {
    case 'ConsolePasswordVerified':
      return { ...state, steps: { ...unexpired(state.steps, event.data.verifiedAt), [event.data.stepSha256]: event.data.expiresAt } };
    case 'ConsoleSignInFailed':
      return { ...state, failuresInARow: state.failuresInARow + 1 };
    case 'ConsoleUserLocked':
      return { ...state, failuresInARow: 0, lockedUntil: event.data.lockedUntil, steps: {} };
    case 'ConsolePasswordChanged':
      return { ...state, passwordHash: event.data.passwordHash, mustChangePassword: false };
    case 'ConsoleTotpEnrolled':
      return { ...state, encryptedTotpSecret: event.data.encryptedSecret };
    case 'ConsoleSignedIn': {
      const { [event.data.stepSha256]: _spent, ...steps } = state.steps;
      return {
        ...state,
        failuresInARow: 0,
        lastTotpCounter: event.data.totpCounter,
        steps,
        sessions: { ...unexpired(state.sessions, event.data.signedInAt), [event.data.sessionSha256]: event.data.expiresAt },
      };
    }
    case 'ConsoleSignedOut': {
      const { [event.data.sessionSha256]: _ended, ...sessions } = state.sessions;
      return { ...state, sessions };
    }
    case 'ConsoleUserReset':
      return { ...state, passwordHash: event.data.passwordHash, mustChangePassword: true, encryptedTotpSecret: null, failuresInARow: 0, lockedUntil: null, steps: {}, sessions: {} };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** Entries still open at `now`: what ended before a later fact is dropped with it, so a user's state stays small. */
function unexpired(entries: Readonly<Record<string, number>>, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(entries).filter(([, endsAt]) => endsAt > now));
}

export function decideCreateConsoleUser(
  existing: ConsoleUser | null,
  input: { userId: string; tenantId: string; tenantExists: boolean; email: string; role: string; passwordHash: string; now: number },
): ConsoleUserEvent[] {
  if (!input.tenantExists) throw notFound('tenant');
  const email = normalizeEmail(input.email);
  if (email.length > 254 || !EMAIL.test(email)) throw validationError('email must be an email address', { errors: [{ field: 'email', reason: 'invalid_format' }] });
  if (!isConsoleRole(input.role)) throw validationError('role must be viewer, auditor or operator', { errors: [{ field: 'role', reason: 'invalid_value' }] });
  if (existing) throw conflict('console_user_exists', 'A console user with this email exists.');
  return [{ type: 'ConsoleUserCreated', data: { userId: input.userId, tenantId: input.tenantId, email, role: input.role, passwordHash: input.passwordHash, createdAt: input.now } }];
}

/** One answer to every refused sign-in, so that it tells nobody whether the email is a user's. */
export const SIGN_IN_REFUSED = 'The email, password or code is not right, or the sign-in took too long; sign in again.';

/**
 * The password step. A wrong password is a fact, and the fifth in a row
 * locks the user; a locked user's password is not even checked, so guessing
 * costs a lock's wait per five guesses, whoever guesses.
 */
export function decidePasswordAttempt(state: ConsoleUser | null, attempt: { matches: boolean; stepSha256: string; now: number }): ConsoleUserEvent[] {
  if (!state) throw unauthenticated(SIGN_IN_REFUSED);
  assertNotLocked(state, attempt.now);
  if (!attempt.matches) return failure(state, 'password', attempt.now);
  return [{ type: 'ConsolePasswordVerified', data: { stepSha256: attempt.stepSha256, verifiedAt: attempt.now, expiresAt: attempt.now + STEP_LIFETIME_MS } }];
}

/** What a step must do next before it can become a session. */
export type NextStep = 'change_password' | 'enrol_totp' | 'totp';

export function nextStep(state: ConsoleUser): NextStep {
  if (state.mustChangePassword) return 'change_password';
  return state.encryptedTotpSecret === null ? 'enrol_totp' : 'totp';
}

/** The step is open: its password was verified less than STEP_LIFETIME_MS ago, and no lock came since. */
export function assertOpenStep(state: ConsoleUser | null, stepSha256: string, now: number): ConsoleUser {
  if (!state || !((state.steps[stepSha256] ?? 0) > now)) throw unauthenticated(SIGN_IN_REFUSED);
  assertNotLocked(state, now);
  return state;
}

/** The first sign-in replaces the password the operator saw with one only the person knows. */
export function decideChangePassword(state: ConsoleUser | null, change: { stepSha256: string; newPassword: string; newPasswordHash: string; now: number }): ConsoleUserEvent[] {
  const user = assertOpenStep(state, change.stepSha256, change.now);
  if (nextStep(user) !== 'change_password') throw conflict('password_change_not_due', 'This sign-in does not ask for a new password.');
  assertPasswordAcceptable(change.newPassword);
  return [{ type: 'ConsolePasswordChanged', data: { passwordHash: change.newPasswordHash, changedAt: change.now } }];
}

export function assertPasswordAcceptable(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) {
    throw validationError(`A password is ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`, { errors: [{ field: 'newPassword', reason: 'invalid_length' }] });
  }
}

/**
 * The second factor: a code checked by the caller against the user's secret
 * (or, at enrolment, the secret being enrolled), given here as the time step
 * it matched, or null. A step already used is refused like a wrong code.
 */
export function decideSecondFactor(
  state: ConsoleUser | null,
  attempt: { stepSha256: string; matchedCounter: number | null; sessionSha256: string; now: number; enrolledSecret?: string },
): ConsoleUserEvent[] {
  const user = assertOpenStep(state, attempt.stepSha256, attempt.now);
  const due = nextStep(user);
  if (due === 'change_password' || (due === 'enrol_totp') !== (attempt.enrolledSecret !== undefined)) {
    throw conflict('sign_in_step_not_due', 'This sign-in is at another step.');
  }
  if (attempt.matchedCounter === null || attempt.matchedCounter <= user.lastTotpCounter) return failure(user, 'totp', attempt.now);
  const signedIn: ConsoleSignedIn = {
    type: 'ConsoleSignedIn',
    data: { stepSha256: attempt.stepSha256, sessionSha256: attempt.sessionSha256, totpCounter: attempt.matchedCounter, signedInAt: attempt.now, expiresAt: attempt.now + SESSION_LIFETIME_MS },
  };
  return attempt.enrolledSecret === undefined ? [signedIn] : [{ type: 'ConsoleTotpEnrolled', data: { encryptedSecret: attempt.enrolledSecret, enrolledAt: attempt.now } }, signedIn];
}

export function decideResetConsoleUser(state: ConsoleUser | null, reset: { passwordHash: string; now: number }): ConsoleUserEvent[] {
  if (!state) throw notFound('console user');
  return [{ type: 'ConsoleUserReset', data: { passwordHash: reset.passwordHash, resetAt: reset.now } }];
}

/** Signing out of a session that has ended already changes nothing. */
export function decideSignOut(state: ConsoleUser | null, sessionSha256: string, now: number): ConsoleUserEvent[] {
  if (!state || !isOpenSession(state, sessionSha256, now)) return [];
  return [{ type: 'ConsoleSignedOut', data: { sessionSha256, signedOutAt: now } }];
}

export function isOpenSession(state: ConsoleUser, sessionSha256: string, now: number): boolean {
  return (state.sessions[sessionSha256] ?? 0) > now;
}

function assertNotLocked(state: ConsoleUser, now: number): void {
  if (state.lockedUntil !== null && state.lockedUntil > now) {
    throw new DomainError('rate_limited', 'console_user_locked', 'Too many failed sign-ins: this user is locked for a while; try again later.', {
      retryAfterSeconds: Math.ceil((state.lockedUntil - now) / 1000),
    });
  }
}

function failure(state: ConsoleUser, factor: SignInFactor, now: number): ConsoleUserEvent[] {
  const failed: ConsoleSignInFailed = { type: 'ConsoleSignInFailed', data: { factor, failedAt: now } };
  if (state.failuresInARow + 1 < LOCK_OUT.failures) return [failed];
  return [failed, { type: 'ConsoleUserLocked', data: { lockedAt: now, lockedUntil: now + LOCK_OUT.durationMs } }];
}

