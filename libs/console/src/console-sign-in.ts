import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { AggregateCache, CommandContext, Decision, loadAggregate, loadTenant, runCommand } from '@ledger/ledger';
import { Principal, conflict, sha256Hex, unauthenticated } from '@ledger/platform';
import {
  ConsoleUser,
  ConsoleUserEvent,
  NextStep,
  SIGN_IN_REFUSED,
  assertOpenStep,
  decideChangePassword,
  decideCreateConsoleUser,
  decideResetConsoleUser,
  decidePasswordAttempt,
  decideSecondFactor,
  decideSignOut,
  evolveConsoleUser,
  isOpenSession,
  nextStep,
  normalizeEmail,
} from './console-user';
import { hashPassword, initialPassword, passwordMatches } from './passwords';
import { ROLE_SCOPES } from './roles';
import { enrolmentSecret, matchedTotpCounter, totpUri } from './totp';

/**
 * A console user's stream is named by the SHA-256 of their email, so that an
 * email is one user in the whole service (the append that creates a user
 * claims it) and a sign-in finds the user from what the person types.
 * Users are roots of tenancy, like API keys: found before any tenant is known.
 */
export const consoleStreams = {
  user: (userRef: string) => `console-user-${userRef}`,
};

/** The reference of a user in their stream's name and in their cookies. */
export function userRefOf(email: string): string {
  return sha256Hex(normalizeEmail(email));
}

/** What a cookie holds for a step or a session: the user's reference and a secret of 256 random bits, of which the ledger keeps the SHA-256. */
const CREDENTIAL = /^([0-9a-f]{64})\.([A-Za-z0-9_-]{43})$/;

interface Credential {
  userRef: string;
  secret: string;
}

function parseCredential(value: string | undefined): Credential | null {
  const match = value === undefined ? null : CREDENTIAL.exec(value);
  return match ? { userRef: match[1], secret: match[2] } : null;
}

function newCredential(userRef: string): Credential & { value: string; secretSha256: string } {
  const secret = randomBytes(32).toString('base64url');
  return { userRef, secret, value: `${userRef}.${secret}`, secretSha256: sha256Hex(secret) };
}

/** What the console needs of the tenant's keys: the TOTP secret is kept encrypted under the tenant's key. */
export interface SecretProtection {
  encrypt(tenantId: string, plaintext: string): Promise<string>;
  decrypt(tenantId: string, protectedText: string): Promise<string>;
}

export interface ConsoleDependencies {
  store: EventStore;
  protection: SecretProtection;
  /** Folded users, so that checking a session reads only the facts recorded since (AggregateCache). */
  users?: AggregateCache<ConsoleUser>;
  /** The name authenticator apps show beside the code. */
  issuer: string;
}

/** A signed-in person as a request sees them. */
export interface ConsoleSession {
  user: ConsoleUser;
  sessionSha256: string;
  /** The token every form of the session carries (csrfTokenOf). */
  csrfToken: string;
  /** The principal the console's routes are authorized with: the role's scopes, and the person as the actor of what they do. */
  principal: Principal;
}

/** `console:<userId>`: who recorded a fact, as metadata names it. */
export function consoleActor(userId: string): string {
  return `console:${userId}`;
}

/**
 * The token a session's forms carry, derived from its secret: an attacker's
 * page, which cannot read the cookie, cannot make it (a synchronizer token
 * kept nowhere).
 */
export function csrfTokenOf(credential: string): string {
  return createHmac('sha256', credential).update('console csrf').digest('base64url');
}

export async function createConsoleUser(
  store: EventStore,
  request: { tenantId: string; email: string; role: string },
  context: CommandContext,
): Promise<{ userId: string; initialPassword: string }> {
  const userId = randomUUID();
  const password = initialPassword();
  const passwordHash = await hashPassword(password);
  const tenantExists = (await loadTenant(store, request.tenantId)) !== null;
  const streamId = consoleStreams.user(userRefOf(request.email));
  await runCommand(store, { ...context, tenantId: request.tenantId }, async (reads): Promise<Decision<null>> => {
    const existing = await reads.fold(streamId, evolveConsoleUser);
    const facts = decideCreateConsoleUser(existing, { userId, tenantId: request.tenantId, tenantExists, email: request.email, role: request.role, passwordHash, now: context.now });
    return { record: { streamId, facts }, answer: null };
  });
  return { userId, initialPassword: password };
}

/** An operator's reset of a person's sign-in (ConsoleUserReset): a new initial password, shown only to the operator. */
export async function resetConsoleUser(store: EventStore, request: { email: string }, context: CommandContext): Promise<{ userId: string; initialPassword: string }> {
  const password = initialPassword();
  const passwordHash = await hashPassword(password);
  const { user } = await runConsoleCommand({ store }, userRefOf(request.email), context, async (user) => decideResetConsoleUser(user, { passwordHash, now: context.now }));
  return { userId: user.userId, initialPassword: password };
}

/** A hash no password matches, checked for an unknown email so that its refusal takes as long as a known one's. */
let unknownUserHash: Promise<string> | undefined;

/**
 * The first factor. A right password opens a step (its credential for the
 * step cookie) that may only finish this sign-in; a wrong one is recorded,
 * and refused with the same words as an unknown email.
 */
export async function signInWithPassword(
  deps: ConsoleDependencies,
  request: { email: string; password: string },
  context: CommandContext,
): Promise<{ stepCredential: string; next: NextStep }> {
  const userRef = userRefOf(request.email);
  const step = newCredential(userRef);
  const result = await runConsoleCommand(deps, userRef, context, async (user) => {
    if (!user) {
      await passwordMatches(request.password, await (unknownUserHash ??= hashPassword(randomUUID())));
      throw unauthenticated(SIGN_IN_REFUSED);
    }
    // Checked only when the user is not locked: decidePasswordAttempt refuses a locked user before looking at it.
    const matches = user.lockedUntil !== null && user.lockedUntil > context.now ? false : await passwordMatches(request.password, user.passwordHash);
    return decidePasswordAttempt(user, { matches, stepSha256: step.secretSha256, now: context.now });
  });
  if (result.refused) throw unauthenticated(SIGN_IN_REFUSED);
  return { stepCredential: step.value, next: nextStep(result.user) };
}

/** At the first sign-in, the operator's password is replaced by the person's own. */
export async function changeInitialPassword(
  deps: ConsoleDependencies,
  request: { stepCredential: string | undefined; newPassword: string },
  context: CommandContext,
): Promise<{ next: NextStep }> {
  const step = requireCredential(request.stepCredential);
  const newPasswordHash = await hashPassword(request.newPassword);
  const result = await runConsoleCommand(deps, step.userRef, context, async (user) =>
    decideChangePassword(user, { stepSha256: sha256Hex(step.secret), newPassword: request.newPassword, newPasswordHash, now: context.now }),
  );
  return { next: nextStep(result.user) };
}

/** What the step a cookie names must do next; refused when it is not open. */
export async function openStep(deps: ConsoleDependencies, stepCredential: string | undefined, now: number): Promise<NextStep> {
  const step = requireCredential(stepCredential);
  return nextStep(assertOpenStep(await loadUser(deps, step.userRef), sha256Hex(step.secret), now));
}

/** What the enrolment page shows: the secret to enter in an authenticator app, and its URI. */
export async function totpEnrolment(deps: ConsoleDependencies, stepCredential: string | undefined, now: number): Promise<{ secret: string; uri: string; email: string }> {
  const step = requireCredential(stepCredential);
  const user = assertOpenStep(await loadUser(deps, step.userRef), sha256Hex(step.secret), now);
  if (nextStep(user) !== 'enrol_totp') throw conflict('sign_in_step_not_due', 'This sign-in is at another step.');
  const secret = enrolmentSecret(step.secret);
  return { secret, uri: totpUri(secret, deps.issuer, user.email), email: user.email };
}

/**
 * The second factor: the code of the authenticator app, enrolling it on the
 * first sign-in. A session begins with a new credential, so nothing known
 * during the step (its cookie) is worth anything after it.
 */
export async function signInWithCode(
  deps: ConsoleDependencies,
  request: { stepCredential: string | undefined; code: string },
  context: CommandContext,
): Promise<{ sessionCredential: string }> {
  const step = requireCredential(request.stepCredential);
  const stepSha256 = sha256Hex(step.secret);
  const session = newCredential(step.userRef);
  const result = await runConsoleCommand(deps, step.userRef, context, async (user) => {
    const open = assertOpenStep(user, stepSha256, context.now);
    const enrolling = nextStep(open) === 'enrol_totp';
    const secret = enrolling ? enrolmentSecret(step.secret) : open.encryptedTotpSecret === null ? null : await deps.protection.decrypt(open.tenantId, open.encryptedTotpSecret);
    const matchedCounter = secret === null ? null : matchedTotpCounter(secret, request.code, context.now);
    const enrolledSecret = enrolling && secret !== null ? await deps.protection.encrypt(open.tenantId, secret) : undefined;
    return decideSecondFactor(open, { stepSha256, matchedCounter, sessionSha256: session.secretSha256, now: context.now, enrolledSecret });
  });
  if (result.refused) throw unauthenticated(SIGN_IN_REFUSED);
  return { sessionCredential: session.value };
}

/** The session a cookie names, if it is open; null for anything else. */
export async function authenticateConsoleSession(deps: ConsoleDependencies, sessionCredential: string | undefined, now: number): Promise<ConsoleSession | null> {
  const credential = parseCredential(sessionCredential);
  if (!credential) return null;
  const user = await loadUser(deps, credential.userRef);
  const sessionSha256 = sha256Hex(credential.secret);
  if (!user || !isOpenSession(user, sessionSha256, now)) return null;
  return {
    user,
    sessionSha256,
    csrfToken: csrfTokenOf(sessionCredential!),
    principal: { tenantId: user.tenantId, keyId: consoleActor(user.userId), scopes: ROLE_SCOPES[user.role] },
  };
}

export async function signOutOfConsole(deps: ConsoleDependencies, session: ConsoleSession, context: CommandContext): Promise<void> {
  await runConsoleCommand(deps, userRefOf(session.user.email), context, async (user) => decideSignOut(user, session.sessionSha256, context.now));
}

async function loadUser(deps: Pick<ConsoleDependencies, 'store' | 'users'>, userRef: string): Promise<ConsoleUser | null> {
  return (await loadAggregate(deps.store, consoleStreams.user(userRef), evolveConsoleUser, deps.users)).state;
}

function requireCredential(value: string | undefined): Credential {
  const credential = parseCredential(value);
  if (!credential) throw unauthenticated(SIGN_IN_REFUSED);
  return credential;
}

/**
 * A command on a user's stream through the one command path. A refusal
 * that is itself a fact (a failure, a lock) is recorded before the caller
 * refuses, so that no guess goes unrecorded.
 */
async function runConsoleCommand(
  deps: Pick<ConsoleDependencies, 'store' | 'users'>,
  userRef: string,
  context: CommandContext,
  decide: (user: ConsoleUser | null) => Promise<ConsoleUserEvent[]>,
): Promise<{ user: ConsoleUser; refused: boolean }> {
  const streamId = consoleStreams.user(userRef);
  // A user's tenant never changes: read before the command, for its facts' metadata.
  const tenantId = (await loadUser(deps, userRef))?.tenantId;
  const { result } = await runCommand(deps.store, tenantId === undefined ? context : { ...context, tenantId }, async (reads) => {
    const user = await reads.fold(streamId, evolveConsoleUser, deps.users);
    const facts = await decide(user);
    const answer = { user: facts.reduce<ConsoleUser | null>(evolveConsoleUser, user)!, refused: facts.some((fact) => fact.type === 'ConsoleSignInFailed') };
    return facts.length === 0 ? { answer, position: null } : { record: { streamId, facts }, answer };
  });
  return result;
}
