import { consoleStreams, createConsoleUser, totpCode, userRefOf } from '@ledger/console';
import { santiagoTime } from '@ledger/embed';
import { verifyAuditBundle } from '@ledger/ledger-log';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { SQLITE_FILE_NAME } from '@ledger/event-store';
import { LedgerLogService } from '../apps/api/src/ledger-log/ledger-log.service';
import { ApiApp, startApiApp } from './support/api-app';
import { cookiesSet } from './support/consent-page';
import { Answer, NEW_PASSWORD, consoleBrowser, cookieLine, hidden } from './support/console';
import { redecConsents } from './support/redec-consents';
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '@ledger/http';
import { EACH_STORE, EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';

// The console's sign-in (docs/console.md; decision 0093) through the real HTTP
// stack, on the embedded SQLite store and on PostgreSQL: forms posted as a
// browser posts them, each protection broken on purpose.

const PUBLIC_URL = 'http://127.0.0.1:3997';
/** What a browser sends with a form post from the console's own page. */
const FROM_CONSOLE = { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' };

describe.each(EACH_STORE)('the console sign-in, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let apiKey: string;
  let emails = 0;

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external' });
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  /** A console user as `ledger console user create` makes one. */
  async function newUser(role = 'operator') {
    const email = `person-${(emails += 1)}@bank.example`;
    const { initialPassword } = await createConsoleUser(api.store, { tenantId, email, role }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    return { email, initialPassword };
  }

  const post: ReturnType<typeof consoleBrowser>['post'] = (...args) => consoleBrowser(api).post(...args);
  const get: ReturnType<typeof consoleBrowser>['get'] = (...args) => consoleBrowser(api).get(...args);
  const passwordStep: ReturnType<typeof consoleBrowser>['passwordStep'] = (...args) => consoleBrowser(api).passwordStep(...args);

  /** A new user through their first sign-in. */
  async function firstSignIn(role = 'operator') {
    const user = await newUser(role);
    return { ...user, ...(await consoleBrowser(api).firstSignIn(user.email, user.initialPassword)) };
  }

  const factsOf = async (email: string) => (await api.store.readStream(consoleStreams.user(userRefOf(email)))).map((event) => event.type);

  it('sends a person without a session to the sign-in, a page that runs nothing and is framed nowhere', async () => {
    const home = await get('/console');
    expect([home.status, home.headers.location]).toEqual([303, '/console/sign-in']);
    const page = await get('/console/sign-in');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
    expect(page.headers).toMatchObject({ 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' });
    expect(page.text).toContain('<html lang="es-CL">');
    expect(page.text).toContain('Iniciar sesión');
    expect(page.text).not.toContain('<script');
    expect((await get('/console/sign-in', [], 'en-US,en;q=0.8')).text).toContain('<html lang="en">');
  });

  it("signs a person in at their first time: the operator's password, one of their own, the authenticator app enrolled with its first code", async () => {
    const { email, session, signedIn } = await firstSignIn('auditor');
    // The step's cookie is cleared, the session's is the site's alone, for scripts of no page, sent by no other site.
    expect(cookieLine(signedIn, '__Host-console-step')).toMatch(/^__Host-console-step=; /);
    expect(cookieLine(signedIn, '__Host-console-session')).toMatch(/^__Host-console-session=[0-9a-f]{64}\.[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const home = await get('/console', session);
    expect(home.status).toBe(200);
    expect(home.text).toContain(email);
    expect(home.text).toContain('Banco de Prueba');
    expect(home.text).toContain('Auditoría');
    expect(await factsOf(email)).toEqual(['ConsoleUserCreated', 'ConsolePasswordVerified', 'ConsolePasswordChanged', 'ConsoleTotpEnrolled', 'ConsoleSignedIn']);
  });

  it('asks for the code at every later sign-in, and refuses a code already used', async () => {
    const { email, secret } = await firstSignIn();
    const { step, next, answer } = await passwordStep(email, NEW_PASSWORD);
    expect(next).toBe('/console/sign-in/code');
    expect(cookieLine(answer, '__Host-console-step')).toMatch(/; Max-Age=300; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const page = await get(next, step);
    expect(page.text).toContain('Código de verificación');
    expect(page.text).not.toContain('class="secret"');
    // The enrolment's code, seen over a shoulder, is spent.
    const spent = await post(next, { csrf: hidden(page.text, 'csrf'), code: totpCode(secret, Date.now() - 30_000) }, step);
    expect(spent.status).toBe(401);
    expect(spent.text).toContain('no son correctos');
    expect((await factsOf(email)).slice(-1)).toEqual(['ConsoleSignInFailed']);
  });

  it('refuses a wrong password and an unknown email alike, records the wrong password, and locks the user at the fifth in a row', async () => {
    const { email, initialPassword } = await newUser();
    const unknown = await post('/console/sign-in', { email: 'nobody@bank.example', password: 'whatever it is' });
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await post('/console/sign-in', { email, password: `guess number ${attempt}` });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toBe(unknown.text);
    }
    expect((await post('/console/sign-in', { email, password: 'the fifth guess' })).status).toBe(401);
    const locked = await post('/console/sign-in', { email, password: initialPassword });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
    expect(locked.text).toContain('bloqueado');
    expect(await factsOf(email)).toEqual(['ConsoleUserCreated', ...Array(5).fill('ConsoleSignInFailed'), 'ConsoleUserLocked']);
  });

  it('refuses, recording nothing, a form posted from another site or without its token', async () => {
    const { email, initialPassword } = await newUser();
    for (const headers of [{ origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' }, {}] as Array<Record<string, string>>) {
      expect((await post('/console/sign-in', { email, password: initialPassword }, [], headers)).status).toBe(403);
    }
    expect(await factsOf(email)).toEqual(['ConsoleUserCreated']);
    const { step } = await passwordStep(email, initialPassword);
    expect((await post('/console/sign-in/new-password', { newPassword: NEW_PASSWORD }, step)).status).toBe(403);
    expect((await post('/console/sign-in/new-password', { csrf: 'forged', newPassword: NEW_PASSWORD }, step)).status).toBe(403);
    expect(await factsOf(email)).toEqual(['ConsoleUserCreated', 'ConsolePasswordVerified']);
  });

  it('keeps the password rules, asking again on the same step', async () => {
    const { email, initialPassword } = await newUser();
    const { step, next } = await passwordStep(email, initialPassword);
    const form = await get(next, step);
    const short = await post(next, { csrf: hidden(form.text, 'csrf'), newPassword: 'short' }, step);
    expect(short.status).toBe(400);
    expect(short.text).toContain('De 12 a 128 caracteres.');
    expect((await post(next, { csrf: hidden(short.text, 'csrf'), newPassword: NEW_PASSWORD }, step)).status).toBe(303);
  });

  it("finds a consent by its internal code and shows it in words; a viewer is told the history needs another role", async () => {
    const consent = await redecConsents(api, apiKey).grant();
    const { session } = await firstSignIn('viewer');
    const found = await get(`/console/consents?by=internalConsentCode&value=${encodeURIComponent(consent.internalConsentCode)}`, session);
    expect(found.status).toBe(200);
    expect(found.text).toContain('1 consentimiento encontrado');
    expect(found.text).toContain(`<a href="/console/consents/${consent.redecConsentId}">${consent.internalConsentCode}</a>`);
    const page = await get(`/console/consents/${consent.redecConsentId}`, session);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Consentimiento ${consent.internalConsentCode}`);
    expect(page.text).toContain('<dt>Estado</dt><dd>Vigente</dd>');
    expect(page.text).toContain('<dt>Se conserva hasta</dt><dd>Aún no se fija: el consentimiento está vigente</dd>');
    expect(page.text).toContain('La historia del consentimiento requiere el rol de auditoría u operación.');
    expect(page.text).not.toContain('ConsentGranted');
    expect((await get('/console/consents?by=internalConsentCode&value=unknown-code', session)).text).toContain('0 consentimientos encontrados');
  });

  it("shows an auditor the consent's history: each fact, when, who recorded it and its hash", async () => {
    const consent = await redecConsents(api, apiKey).grant();
    const { session } = await firstSignIn('auditor');
    const page = await get(`/console/consents/${consent.redecConsentId}`, session, 'en');
    expect(page.text).toContain('<h2>History</h2>');
    const [grant] = await api.store.readStream(`redec-consent-${tenantId}-${consent.redecConsentId}`);
    expect(page.text).toMatch(new RegExp(`<tr><td>${grant.position}</td><td>[0-9-]+ [0-9:]+</td><td>ConsentGranted</td><td>${grant.metadata.actor}</td><td class="hash" title="${grant.integrity.hash}">`));
  });

  it("verifies a consent's history for an auditor, as `ledger audit verify-bundle` does, and hands out the bundle to verify elsewhere", async () => {
    const consent = await redecConsents(api, apiKey).grant();
    const { session } = await firstSignIn('auditor');
    expect((await get(`/console/consents/${consent.redecConsentId}`, session)).text).toContain(`<a href="/console/consents/${consent.redecConsentId}/verification">`);
    const verified = await get(`/console/consents/${consent.redecConsentId}/verification`, session);
    expect(verified.status).toBe(200);
    expect(verified.text).toMatch(/<p class="notice" role="status">Íntegra: su único hecho está en su cadena de hashes, sin alteraciones, y en el árbol de Merkle del registro, incluido en el punto de control firmado de tamaño \d+\.<\/p>/);
    const download = await get(`/console/consents/${consent.redecConsentId}/audit-bundle.json`, session);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="audit-bundle-${consent.redecConsentId}.json"`);
    const bundle = JSON.parse(download.text);
    // Checked against the key the service signs with, not the one the bundle names.
    expect(verifyAuditBundle(bundle, { verifierKey: api.app.get(LedgerLogService).identity.verifierKey })).toMatchObject({ valid: true, redecConsentId: consent.redecConsentId, events: 1 });
    // A viewer may not.
    const viewer = await firstSignIn('viewer');
    expect((await get(`/console/consents/${consent.redecConsentId}/verification`, viewer.session)).status).toBe(403);
    expect((await get(`/console/consents/${consent.redecConsentId}/audit-bundle.json`, viewer.session)).status).toBe(403);
  });

  it("answers 404 for another tenant's consent, and sends a person without a session to the sign-in", async () => {
    const other = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    const theirs = await redecConsents(api, other.apiKey).grant();
    const { session } = await firstSignIn('operator');
    expect((await get(`/console/consents/${theirs.redecConsentId}`, session)).status).toBe(404);
    expect((await get(`/console/consents?by=internalConsentCode&value=${theirs.internalConsentCode}`, session)).text).toContain('0 consentimientos encontrados');
    expect((await get('/console/consents/not-a-uuid', session)).status).toBe(404);
    const anonymous = await get(`/console/consents/${theirs.redecConsentId}`);
    expect([anonymous.status, anonymous.headers.location]).toEqual([303, '/console/sign-in']);
  });

  it('lists the notices still owed after N banking days, a page at a time and whole as CSV, of the tenant alone', async () => {
    const DAY = 24 * 60 * 60_000;
    const owed = await redecConsents(api, apiKey).grant({ occurredAt: Date.now() - 6 * DAY });
    const other = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    const theirs = await redecConsents(api, other.apiKey).grant({ occurredAt: Date.now() - 6 * DAY });
    const { session } = await firstSignIn('viewer');

    const list = await get('/console/notices/overdue', session);
    expect(list.status).toBe(200);
    expect(list.text).toContain('<input id="after-banking-days" name="afterBankingDays" type="number" min="0" max="60" required value="2">');
    expect(list.text).toMatch(new RegExp(`<tr><td><a href="/console/consents/${owed.redecConsentId}">${owed.internalConsentCode}</a></td><td>Otorgamiento</td>`));
    expect(list.text).not.toContain(theirs.internalConsentCode);
    // Not yet owed sixty banking days on.
    expect((await get('/console/notices/overdue?afterBankingDays=60', session)).text).not.toContain(owed.internalConsentCode);

    const csv = await get('/console/notices/overdue.csv?afterBankingDays=2', session);
    expect(csv.status).toBe(200);
    expect(csv.headers).toMatchObject({ 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="overdue-notices-2-banking-days.csv"' });
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('internalConsentCode,redecConsentId,reason,actionAt,dueAt,consentActionId');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${owed.internalConsentCode},${owed.redecConsentId},grant,\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z,\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z,${owed.consentActionId}$`)));
    expect(csv.text).not.toContain(theirs.internalConsentCode);
    expect((await get('/console/notices/overdue.csv')).status).toBe(303);
  });

  /** An instant as a `datetime-local` field on Santiago's clock sends it. */
  function santiagoLocal(epochMs: number): string {
    const { date, time } = santiagoTime(epochMs);
    const [day, month, year] = date.split('-');
    return `${year}-${month}-${day}T${time}`;
  }

  /** The evidence form of a consent's page, filled in as an operator does. */
  function evidenceForm(page: string, change: Record<string, string> = {}): Record<string, string> {
    return {
      csrf: hidden(page, 'csrf'),
      idempotencyKey: hidden(page, 'idempotencyKey'),
      notificationReason: 'grant',
      notificationChannel: 'email',
      status: 'delivered',
      sentAt: santiagoLocal(Date.now() - 60_000),
      recipientHash: 'c'.repeat(64),
      sourceSystem: 'notificador',
      sourceReference: `aviso-${emails}`,
      contentSha256: 'd'.repeat(64),
      contentReference: '',
      ...change,
    };
  }

  it('clears an overdue notice by recording its evidence, once however often the form is posted, as the person who recorded it', async () => {
    const owed = await redecConsents(api, apiKey).grant({ occurredAt: Date.now() - 6 * 24 * 60 * 60_000 });
    const { session } = await firstSignIn('operator');
    const list = await get('/console/notices/overdue', session);
    expect(list.text).toContain(`<a href="/console/consents/${owed.redecConsentId}?reason=grant#notice">Registrar evidencia</a>`);
    const page = await get(`/console/consents/${owed.redecConsentId}?reason=grant`, session);
    expect(page.text).toContain('<h2 id="notice">Registrar evidencia de aviso</h2>');
    const form = evidenceForm(page.text);
    const recorded = await post(`/console/consents/${owed.redecConsentId}/notification-evidence`, form, session);
    expect([recorded.status, recorded.headers.location]).toEqual([303, `/console/consents/${owed.redecConsentId}?recorded=1#notice`]);
    expect((await get(recorded.headers.location as string, session)).text).toContain('<p class="notice" role="status">Evidencia de aviso registrada.</p>');
    expect((await get('/console/notices/overdue', session)).text).not.toContain(owed.internalConsentCode);
    // The same form again: the same record, not a second one.
    expect((await post(`/console/consents/${owed.redecConsentId}/notification-evidence`, form, session)).status).toBe(303);
    const facts = (await api.store.readStream(`redec-consent-${tenantId}-${owed.redecConsentId}`)).filter((event) => event.type === 'NotificationEvidenceRecorded');
    expect(facts).toHaveLength(1);
    expect(facts[0].metadata.actor).toMatch(/^console:[0-9a-f-]{36}$/);
    expect(facts[0].data).toMatchObject({ notificationReason: 'grant', status: 'delivered', recipientHash: 'c'.repeat(64), contentSha256: 'd'.repeat(64) });
  });

  it("refuses evidence the API refuses, with the API's reasons, recording nothing", async () => {
    const consent = await redecConsents(api, apiKey).grant();
    const { session } = await firstSignIn('operator');
    const page = await get(`/console/consents/${consent.redecConsentId}`, session);
    const path = `/console/consents/${consent.redecConsentId}/notification-evidence`;
    const address = await post(path, evidenceForm(page.text, { recipientHash: 'persona@correo.example.com.ar.cl' }), session);
    expect(address.status).toBe(400);
    expect(address.text).toContain('recipient_not_hashed');
    const early = await post(path, evidenceForm(page.text, { sentAt: santiagoLocal(consent.grantedAt - 2 * 60 * 60_000) }), session);
    expect(early.status).toBe(400);
    expect(early.text).toContain('sent_at_before_notified_fact');
    const notRevoked = await post(path, evidenceForm(page.text, { notificationReason: 'revoke' }), session);
    expect(notRevoked.status).toBe(409);
    expect((await post(path, evidenceForm(page.text, { sentAt: 'yesterday' }), session)).status).toBe(400);
    const facts = (await api.store.readStream(`redec-consent-${tenantId}-${consent.redecConsentId}`)).map((event) => event.type);
    expect(facts).not.toContain('NotificationEvidenceRecorded');
  });

  it('lets a viewer or an auditor read a consent but record nothing', async () => {
    const consent = await redecConsents(api, apiKey).grant();
    for (const role of ['viewer', 'auditor']) {
      const { session } = await firstSignIn(role);
      const page = await get(`/console/consents/${consent.redecConsentId}`, session);
      expect(page.text).not.toContain('Registrar evidencia de aviso');
      const refused = await post(`/console/consents/${consent.redecConsentId}/notification-evidence`, { ...evidenceForm(page.text.replace('</main>', '<input type="hidden" name="idempotencyKey" value="6f0c2c57-0d5b-4f43-9b1e-1a4b8c3f2e10"></main>')) }, session);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Su rol no permite ver esta página.');
    }
    expect((await api.store.readStream(`redec-consent-${tenantId}-${consent.redecConsentId}`)).map((event) => event.type)).not.toContain('NotificationEvidenceRecorded');
  });

  it('ends the session at sign-out, only from a form of the session itself', async () => {
    const { email, session } = await firstSignIn();
    const home = await get('/console', session);
    expect((await post('/console/sign-out', { csrf: 'forged' }, session)).status).toBe(403);
    expect((await get('/console', session)).status).toBe(200);
    const out = await post('/console/sign-out', { csrf: hidden(home.text, 'csrf') }, session);
    expect([out.status, out.headers.location]).toEqual([303, '/console/sign-in']);
    expect((await get('/console', session)).status).toBe(303);
    expect((await factsOf(email)).slice(-1)).toEqual(['ConsoleSignedOut']);
    const signedOut = (await api.store.readStream(consoleStreams.user(userRefOf(email)))).at(-1)!;
    expect(signedOut.metadata).toMatchObject({ tenantId, actor: expect.stringMatching(/^console:[0-9a-f-]{36}$/) });
  });
});

describe('the console sign-in, from one address', () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  beforeAll(async () => {
    environment = testEnvironment(EMBEDDED_STORE);
    // Far above the sign-in's own budget, so that it is the one spent.
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external', LEDGER_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('takes SIGN_IN_ATTEMPTS_PER_MINUTE attempts a minute, then refuses 429 before checking any password', async () => {
    const attempt = (email: string) => api.http.post('/console/sign-in').set(FROM_CONSOLE).type('form').send({ email, password: 'a guess at it' });
    const { tenantId } = await api.tenantKey(['consent:read']);
    await createConsoleUser(api.store, { tenantId, email: 'late@bank.example', role: 'viewer' }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    const answers = [];
    // One window: a minute that began less than a second ago would end before the last attempt.
    if (Date.now() % 60_000 > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000)));
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) answers.push((await attempt(`nobody-${i}@bank.example`)).status);
    expect(new Set(answers)).toEqual(new Set([401]));
    const refused = await attempt('late@bank.example');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The user's password was never checked: no failure is recorded for it.
    expect((await api.store.readStream(consoleStreams.user(userRefOf('late@bank.example')))).map((event) => event.type)).toEqual(['ConsoleUserCreated']);
    // Reading the page is not an attempt.
    expect((await api.http.get('/console/sign-in')).status).toBe(200);
  });
});

describe("the console's verification, of a ledger altered behind the service's back", () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  beforeAll(async () => {
    // The embedded store's file, edited as someone holding the database could.
    environment = testEnvironment(EMBEDDED_STORE);
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external' });
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('says the history could not be verified, and why', async () => {
    const { tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    const consent = await redecConsents(api, apiKey).grant();
    const email = 'auditora@bank.example';
    const { initialPassword } = await createConsoleUser(api.store, { tenantId, email, role: 'auditor' }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    const { session } = await consoleBrowser(api).firstSignIn(email, initialPassword);

    const db = new Database(join(environment.dataDir, SQLITE_FILE_NAME));
    try {
      const changed = db.prepare(`UPDATE events SET data = replace(data, '"channel":"digital"', '"channel":"in_person"') WHERE stream_id = ?`).run(`redec-consent-${tenantId}-${consent.redecConsentId}`);
      expect(changed.changes).toBe(1);
    } finally {
      db.close();
    }
    const page = await api.http.get(`/console/consents/${consent.redecConsentId}/verification`).set('Cookie', session);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<p class="error" role="alert">No se pudo verificar: .*hash/);
    expect(page.text).not.toContain('Íntegra');
  });
});
