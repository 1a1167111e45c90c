import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { createTenant } from '@ledger/ledger';
import { DomainError, IdentifierProtection } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import {
  ConsoleDependencies,
  authenticateConsoleSession,
  changeInitialPassword,
  consoleStreams,
  createConsoleUser,
  resetConsoleUser,
  signInWithCode,
  signInWithPassword,
  signOutOfConsole,
  totpEnrolment,
  userRefOf,
} from './console-sign-in';
import { LOCK_OUT, SIGN_IN_REFUSED } from './console-user';
import { totpCode } from './totp';

const NOW = 1_800_000_000_000;
const context = (now = NOW) => ({ actor: 'console:sign-in', correlationId: 'c', now });
const NEW_PASSWORD = 'correct horse battery staple';

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => new Error('not refused'),
    (thrown: unknown) => thrown,
  );
  if (error instanceof DomainError) return error;
  throw error;
}

// Integration: the real SQLite store and the tenant keys' encryption; scrypt as the service runs it.
describe('console sign-in', () => {
  let dir: string;
  let store: SqliteEventStore;
  let deps: ConsoleDependencies;
  let tenantId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-sign-in-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    deps = { store, protection: new IdentifierProtection(ephemeralTenantKeys(), ephemeralCustomerKeys()), issuer: 'Banco Ejemplo' };
    ({ tenantId } = await createTenant(store, 'Banco Ejemplo', { actor: 'cli:test', correlationId: 'c', now: NOW }));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A user through their first sign-in: the operator's password, a new one, the app enrolled; the session's credential. */
  async function firstSignIn(email = 'ana@bank.cl', role = 'operator') {
    const { initialPassword } = await createConsoleUser(store, { tenantId, email, role }, { actor: 'cli:test', correlationId: 'c', now: NOW });
    const { stepCredential, next } = await signInWithPassword(deps, { email, password: initialPassword }, context());
    expect(next).toBe('change_password');
    expect((await changeInitialPassword(deps, { stepCredential, newPassword: NEW_PASSWORD }, context())).next).toBe('enrol_totp');
    const { secret, uri } = await totpEnrolment(deps, stepCredential, NOW);
    expect(uri).toMatch(/^otpauth:\/\/totp\/Banco%20Ejemplo:ana%40bank\.cl\?/);
    const { sessionCredential } = await signInWithCode(deps, { stepCredential, code: totpCode(secret, NOW) }, context());
    return { sessionCredential, secret };
  }

  it('signs a person in with their password and code, and the session carries the role as scopes', async () => {
    const { sessionCredential, secret } = await firstSignIn();
    const session = await authenticateConsoleSession(deps, sessionCredential, NOW + 1);
    expect(session).toMatchObject({ user: { email: 'ana@bank.cl', tenantId, role: 'operator' }, principal: { tenantId, scopes: expect.arrayContaining(['consent:runtime']) } });
    expect(session!.principal.keyId).toBe(`console:${session!.user.userId}`);

    // The next sign-in: the new password, then a code of a later time step (the enrolment's is spent).
    const later = NOW + 60_000;
    const { stepCredential, next } = await signInWithPassword(deps, { email: 'ANA@bank.cl', password: NEW_PASSWORD }, context(later));
    expect(next).toBe('totp');
    const second = await signInWithCode(deps, { stepCredential, code: totpCode(secret, later) }, context(later));
    expect(await authenticateConsoleSession(deps, second.sessionCredential, later)).not.toBeNull();
    // The step's credential is spent: it does not open a session, nor a second one.
    expect(await authenticateConsoleSession(deps, stepCredential, later)).toBeNull();
    expect((await refusal(signInWithCode(deps, { stepCredential, code: totpCode(secret, later + 30_000) }, context(later + 30_000)))).kind).toBe('unauthenticated');
  });

  it('keeps no secret in the ledger: hashes of passwords and credentials, the TOTP secret encrypted', async () => {
    const { sessionCredential, secret } = await firstSignIn();
    const facts = JSON.stringify(await store.readStream(consoleStreams.user(userRefOf('ana@bank.cl'))));
    for (const value of [NEW_PASSWORD, sessionCredential.split('.')[1], secret]) expect(facts).not.toContain(value);
    expect(facts).toContain('"passwordHash":"scrypt$16$8$1$');
  });

  it('refuses a wrong password as it refuses an unknown email, and records the wrong password', async () => {
    await createConsoleUser(store, { tenantId, email: 'ana@bank.cl', role: 'viewer' }, { actor: 'cli:test', correlationId: 'c', now: NOW });
    const wrong = await refusal(signInWithPassword(deps, { email: 'ana@bank.cl', password: 'not the password' }, context()));
    const unknown = await refusal(signInWithPassword(deps, { email: 'nobody@bank.cl', password: 'not the password' }, context()));
    expect([wrong.kind, wrong.detail]).toEqual(['unauthenticated', SIGN_IN_REFUSED]);
    expect([unknown.kind, unknown.detail]).toEqual(['unauthenticated', SIGN_IN_REFUSED]);
    const types = (await store.readStream(consoleStreams.user(userRefOf('ana@bank.cl')))).map((event) => [event.type, event.metadata.tenantId]);
    expect(types).toEqual([
      ['ConsoleUserCreated', tenantId],
      ['ConsoleSignInFailed', tenantId],
    ]);
    expect(await store.readStream(consoleStreams.user(userRefOf('nobody@bank.cl')))).toEqual([]);
  });

  it('locks a user after five wrong passwords in a row, whatever the password that follows', async () => {
    const { initialPassword } = await createConsoleUser(store, { tenantId, email: 'ana@bank.cl', role: 'viewer' }, { actor: 'cli:test', correlationId: 'c', now: NOW });
    for (let i = 0; i < LOCK_OUT.failures; i++) await refusal(signInWithPassword(deps, { email: 'ana@bank.cl', password: `guess ${i}` }, context(NOW + i)));
    const locked = await refusal(signInWithPassword(deps, { email: 'ana@bank.cl', password: initialPassword }, context(NOW + 10)));
    expect(locked).toMatchObject({ kind: 'rate_limited', code: 'console_user_locked' });
    expect((await signInWithPassword(deps, { email: 'ana@bank.cl', password: initialPassword }, context(NOW + LOCK_OUT.durationMs + 10))).next).toBe('change_password');
  });

  it('ends a session at sign-out', async () => {
    const { sessionCredential } = await firstSignIn();
    const session = (await authenticateConsoleSession(deps, sessionCredential, NOW + 1))!;
    await signOutOfConsole(deps, session, context(NOW + 2));
    expect(await authenticateConsoleSession(deps, sessionCredential, NOW + 3)).toBeNull();
  });

  it("resets a person's sign-in at an operator's word: sessions end, the old password and app are gone, the next sign-in starts as the first", async () => {
    const { sessionCredential } = await firstSignIn();
    const { initialPassword } = await resetConsoleUser(store, { email: 'Ana@bank.cl' }, { actor: 'cli:test', correlationId: 'c', now: NOW + 10 });
    expect(await authenticateConsoleSession(deps, sessionCredential, NOW + 11)).toBeNull();
    expect((await refusal(signInWithPassword(deps, { email: 'ana@bank.cl', password: NEW_PASSWORD }, context(NOW + 12)))).kind).toBe('unauthenticated');
    const { stepCredential, next } = await signInWithPassword(deps, { email: 'ana@bank.cl', password: initialPassword }, context(NOW + 13));
    expect(next).toBe('change_password');
    expect((await changeInitialPassword(deps, { stepCredential, newPassword: `${NEW_PASSWORD} again` }, context(NOW + 14))).next).toBe('enrol_totp');
    expect((await refusal(resetConsoleUser(store, { email: 'nobody@bank.cl' }, { actor: 'cli:test', correlationId: 'c', now: NOW }))).kind).toBe('not_found');
  });

  it('refuses a second user with the same email, whatever its case', async () => {
    await createConsoleUser(store, { tenantId, email: 'ana@bank.cl', role: 'viewer' }, { actor: 'cli:test', correlationId: 'c', now: NOW });
    expect((await refusal(createConsoleUser(store, { tenantId, email: 'Ana@Bank.cl', role: 'auditor' }, { actor: 'cli:test', correlationId: 'c', now: NOW }))).code).toBe(
      'console_user_exists',
    );
  });
});
