import { randomUUID } from 'node:crypto';
import { PRIVACY_CENTER_COOKIE, embedStreams } from '@ledger/embed';
import { ApiApp, startApiApp } from './support/api-app';
import { cookiesSet } from './support/consent-page';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { generalConsents } from './support/general-consents';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { TEST_PRESENTATION, initialWindowAccess } from './support/redec-fixtures';

// The privacy center (docs/privacy-center.md; decision 0076) through the real
// HTTP stack and Redis, on the embedded SQLite store and on PostgreSQL: the
// session API, the page's
// protections (token, cookie, CSRF, frame-ancestors, expiry) and what the
// page records, each protection broken on purpose with a form posted as a
// browser would. A real browser clicks through the same page in
// privacy-center.browser.e2e-spec.ts.

const PUBLIC_URL = 'http://127.0.0.1:3998';
const BANK_SITE = 'https://www.bank.example';
const MINUTE = 60_000;

/** One form of the page as a browser would post it: its action and its fields (hidden ones filled in). */
interface PageForm {
  action: string;
  fields: Record<string, string>;
}

interface OpenedCenter {
  exchange: { status: number; headers: Record<string, string | string[]> };
  page: { status: number; headers: Record<string, string>; text: string };
  cookie: string;
  forms: PageForm[];
}

describe.each(EACH_STORE)('the privacy center: POST /v1/privacy-center/sessions and the page, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let tenantId: string;
  let consents: ReturnType<typeof redecConsents>;

  const post = (path: string, body: object, apiKey = key) => api.http.post(path).set('Authorization', `Bearer ${apiKey}`).set('Idempotency-Key', randomUUID()).send(body);
  const get = (path: string) => api.http.get(path).set('Authorization', `Bearer ${key}`);
  const openSession = (body: Record<string, unknown>) => post('/v1/privacy-center/sessions', { returnUrl: `${BANK_SITE}/privacidad`, ...body });

  /** Opens a session's URL as a browser does: the token is exchanged for the cookie, then the page is read with it. */
  async function openCenter(url: string): Promise<OpenedCenter> {
    const { pathname, search } = new URL(url);
    const exchange = await api.http.get(pathname + search);
    expect(exchange.status).toBe(303);
    const [cookie] = cookiesSet(exchange.headers);
    const page = await api.http.get(exchange.headers.location).set({ cookie });
    return { exchange, page, cookie, forms: formsOf(page.text) };
  }

  /** What the browser sends: a form to its action, with the page's cookie and its own origin. */
  function submit(center: Pick<OpenedCenter, 'cookie'>, form: PageForm, change: Record<string, string> = {}, headers: Record<string, string> = { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin', cookie: center.cookie }) {
    return api.http.post(form.action).set(headers).type('form').send({ ...form.fields, ...change });
  }

  /** The revocation form of a consent, its confirmation ticked as the person does. */
  function revokeForm(center: OpenedCenter, consentId: string): PageForm {
    const form = center.forms.find((f) => f.fields.consentId === consentId);
    if (!form) throw new Error(`no revocation form for ${consentId}`);
    return { ...form, fields: { ...form.fields, confirm: 'yes' } };
  }
  const requestForm = (center: OpenedCenter) => center.forms.find((f) => f.action.endsWith('/rights-requests'))!;

  beforeAll(async () => {
    environment = environmentOf();
    // The certificate worker runs elsewhere, so a refused request can be checked to move nothing in the store.
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external' });
    ({ apiKey: key, tenantId } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
    consents = redecConsents(api, key);
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('opens the center for a customer by id: a page URL on the public URL naming no internal id, and its expiry', async () => {
    const consent = await consents.grant();
    const before = Date.now();
    const opened = await openSession({ customerId: consent.customerId });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual({ sessionId: expect.any(String), customerId: consent.customerId, url: expect.any(String), expiresAt: expect.any(Number), customerCreated: false });
    expect(opened.body.url).toMatch(new RegExp(`^${PUBLIC_URL}/privacy-center/pages/[A-Za-z0-9_-]+\\?token=[A-Za-z0-9_-]+$`));
    for (const id of [tenantId, consent.customerId, opened.body.sessionId]) expect(opened.body.url).not.toContain(id);
    expect(opened.body.expiresAt).toBeGreaterThanOrEqual(before + 900_000);
    expect(opened.body.expiresAt).toBeLessThanOrEqual(Date.now() + 900_000);

    // The token is kept only as its hash.
    const [recorded] = await api.store.readStream(embedStreams.privacyCenterSession(tenantId, opened.body.sessionId));
    const token = new URL(opened.body.url).searchParams.get('token')!;
    expect(recorded).toMatchObject({ type: 'PrivacyCenterSessionOpened', data: { customerId: consent.customerId, identityAssurance: 'client_authenticated', returnUrl: `${BANK_SITE}/privacidad` } });
    expect(JSON.stringify(recorded.data)).not.toContain(token);
  });

  it('refuses, recording nothing, a session without its customer, on an unknown customer, or with a return URL or term it does not take', async () => {
    const consent = await consents.grant();
    // Nothing but the idempotency records of the refusals.
    await recordsNoFact(api, async () => {
      expectValidationError(await openSession({}), [{ field: 'userReference', reason: 'required' }], 'customer_reference_required');
      expectValidationError(await openSession({ customerId: consent.customerId, returnUrl: 'http://www.bank.example/x' }), [{ field: 'returnUrl', reason: 'invalid_return_url' }]);
      expectValidationError(await openSession({ customerId: consent.customerId, expiresInSeconds: 30 }), [{ field: 'expiresInSeconds', reason: 'too_small' }]);
      expectValidationError(await openSession({ customerId: consent.customerId, tenantId }), [{ field: 'tenantId', reason: 'unknown_property' }]);
      expectProblem(await openSession({ customerId: randomUUID() }), 404, 'NOT_FOUND');
    });
  });

  it('refuses, recording nothing for the session, a customer whose page would show a code without its meaning, naming where the meaning goes', async () => {
    const consent = await consents.grant();
    // An access asked for an objective the bank never explained, denied but shown to the person all the same.
    const denied = await post('/v1/redec/accesses/authorize', { ...initialWindowAccess(consent.redecConsentId), objectiveCode: '09' });
    expect(denied.body.decision.status).toBe('denied');
    const refused = await recordsNoFact(api, () => openSession({ customerId: consent.customerId }));
    expectProblem(refused, 409, 'readable_terms_missing');
    expect(refused.body.errors).toEqual([{ field: 'presentation.terms.objective.09', reason: 'readable_terms_missing' }]);
  });

  it('exchanges the token for a cookie of its page alone and shows what the person consented to in words, framed only by the bank', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId })).body;
    const center = await openCenter(opened.url);
    const path = new URL(opened.url).pathname;
    expect(center.exchange.headers.location).toBe(path);
    const [setCookie] = [center.exchange.headers['set-cookie']].flat() as string[];
    expect(setCookie.split('; ').slice(1).sort()).toEqual([`Path=${path}`, 'HttpOnly', 'Partitioned', 'SameSite=None', 'Secure'].sort());
    expect(center.cookie.startsWith(`${PRIVACY_CENTER_COOKIE}=`)).toBe(true);

    expect(center.page.status).toBe(200);
    const policy = center.page.headers['content-security-policy'];
    expect(policy).toContain(`frame-ancestors ${BANK_SITE}`);
    expect(policy).toContain("default-src 'none'");
    expect(center.page.headers['cache-control']).toBe('no-store');
    const text = center.page.text;
    expect(text).toContain(`<title>Sus consentimientos y solicitudes · ${TEST_PRESENTATION.displayName}</title>`);
    expect(text).toContain(`${TEST_PRESENTATION.terms.finality['2']} <span class="code">(código 2)</span>`);
    expect(text).toContain(`${TEST_PRESENTATION.terms.objective['02']} <span class="code">(código 02)</span>`);
    // No internal id where the person reads: the forms carry the consent they act on, hidden.
    const shown = text.replace(/<input type="hidden"[^>]*>/g, '');
    for (const id of [tenantId, consent.customerId, consent.redecConsentId, consent.internalConsentCode, opened.sessionId]) expect(shown).not.toContain(id);

    // Opened again without the token, the page is served on the cookie alone; without either, it asks for the bank's link.
    expect((await api.http.get(path).set({ cookie: center.cookie })).status).toBe(200);
    const bare = await api.http.get(path);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain('Entre desde el sitio de su banco');
    expect(bare.text).not.toContain(TEST_PRESENTATION.displayName);
  });

  it('revokes a consent as the data subject, on channel digital, with the assurance the bank stated, and says so on the page', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId, identityAssurance: 'client_authenticated' })).body;
    const center = await openCenter(opened.url);
    const revoked = await submit(center, revokeForm(center, consent.redecConsentId));
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe(`${new URL(opened.url).pathname}?done=revoked`);

    const read = await get(`/v1/redec/consents/${consent.redecConsentId}`);
    expect(read.body).toMatchObject({ status: 'revoked', revocation: { channel: 'digital', effective: true } });
    const [revocation] = (await api.store.readStream(`redec-consent-${tenantId}-${consent.redecConsentId}`)).filter((e) => e.type === 'RevocationRecorded');
    expect(revocation.data).toMatchObject({ channel: 'digital', sourceType: 'direct', identityAssurance: 'client_authenticated', effective: true });
    expect(revocation.metadata.actor).toBe('privacy-center');

    const after = await api.http.get(revoked.headers.location).set({ cookie: center.cookie });
    expect(after.text).toContain('role="status">Registramos la revocación.');
    expect(after.text).toContain('<dt>Estado:</dt><dd>Revocado</dd>');
    // Revoked, the consent offers no revocation any more; a second one from the old form changes nothing.
    expect(formsOf(after.text).some((form) => form.fields.consentId === consent.redecConsentId)).toBe(false);
    const again = await recordsNothingAtAll(api, () => submit(center, revokeForm(center, consent.redecConsentId)));
    expect(again.headers.location).toMatch(/\?done=already_revoked$/);
  });

  it('keeps a revocation without effect while a credit extension keeps the consent, and tells the person when it will apply', async () => {
    const consent = await consents.grant({ occurredAt: Date.now() - 2 * MINUTE });
    const extended = await post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions`, {
      customerTenantId: consent.customerId,
      objectiveCode: '02',
      creditOperationReference: `op-${randomUUID()}`,
      creditGrantedAt: consent.grantedAt + MINUTE / 2,
      sourceSystem: 'core-loans',
      sourceReference: `loan-${randomUUID()}`,
    });
    expect(extended.status).toBe(201);
    const center = await openCenter((await openSession({ customerId: consent.customerId })).body.url);
    expect(center.page.text).toContain('Este consentimiento respalda un crédito que usted tiene vigente.');
    const revoked = await submit(center, revokeForm(center, consent.redecConsentId));
    expect(revoked.headers.location).toMatch(/\?done=revocation_kept$/);
    expect((await get(`/v1/redec/consents/${consent.redecConsentId}`)).body).toMatchObject({ status: 'extended', revocation: { effective: false } });
    const after = await api.http.get(revoked.headers.location).set({ cookie: center.cookie });
    expect(after.text).toContain('la revocación tendrá efecto cuando termine.');
    expect(after.text).toContain('(tendrá efecto cuando termine el crédito en curso)');
  });

  it('revokes a general consent of the person too', async () => {
    const consent = await consents.grant();
    const general = await generalConsents(api, key).grant(consent.customerId);
    const center = await openCenter((await openSession({ customerId: consent.customerId })).body.url);
    expect((await submit(center, revokeForm(center, general.consentId))).headers.location).toMatch(/\?done=revoked$/);
    expect((await get(`/v1/consents/${general.consentId}`)).body).toMatchObject({ revocation: { channel: 'digital' } });
    const [revocation] = (await api.store.readStream(`general-consent-${tenantId}-${general.consentId}`)).filter((e) => e.type === 'GeneralConsentRevoked');
    expect(revocation.data).toMatchObject({ channel: 'digital', sourceSystem: 'ledger-privacy-center' });
  });

  it('refuses, recording nothing, a post without the cookie, from another site, without the CSRF value or the confirmation, or on a consent that is not the person’s', async () => {
    const mine = await consents.grant();
    const theirs: GrantedConsent = await consents.grant();
    const center = await openCenter((await openSession({ customerId: mine.customerId })).body.url);
    const other = await openCenter((await openSession({ customerId: theirs.customerId })).body.url);
    const form = revokeForm(center, mine.redecConsentId);
    const answers = await recordsNothingAtAll(api, async () => [
      await submit(center, form, {}, { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' }),
      await submit(center, form, {}, { cookie: center.cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      await submit(center, form, {}, { cookie: center.cookie }),
      await submit(center, form, { csrf: other.forms[0].fields.csrf }),
      await submit(center, form, { confirm: '' }),
      await submit(center, form, { consentId: theirs.redecConsentId }),
      await submit(center, form, { consentKind: 'other' }),
      // The other person's cookie with this page's form: its token does not open this page.
      await submit(center, form, {}, { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin', cookie: other.cookie }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([403, 303, 303, 303, 303, 303, 303, 404]);
    expect(answers.slice(1, 7).map((answer) => answer.headers.location.split('?done=')[1])).toEqual(['refused', 'refused', 'refused', 'confirmation_required', 'refused', 'refused']);
    expect((await get(`/v1/redec/consents/${mine.redecConsentId}`)).body.status).toBe('granted');
  });

  it('files a rights request for the person, received now on channel digital, and shows it with its deadline', async () => {
    const consent = await consents.grant();
    const center = await openCenter((await openSession({ customerId: consent.customerId })).body.url);
    const before = await api.store.headPosition();
    const filed = await submit(center, requestForm(center), { kind: 'access', description: '  ¿Qué datos míos tienen?  ' });
    expect(filed.headers.location).toMatch(/\?done=request_filed$/);
    const [received] = (await api.store.readAll({ after: before })).filter((e) => e.type === 'RightsRequestReceived');
    const request = (await get(`/v1/rights-requests/${(received.data as { rightsRequestId: string }).rightsRequestId}`)).body;
    expect(request).toMatchObject({ customerId: consent.customerId, kind: 'access', channel: 'digital', sourceSystem: 'ledger-privacy-center', description: '¿Qué datos míos tienen?', status: 'received' });
    const after = await api.http.get(filed.headers.location).set({ cookie: center.cookie });
    expect(after.text).toContain('<strong>Acceso</strong>, presentada el');
    expect(after.text).toContain('Estado: Recibida. Plazo de respuesta:');

    // A kind the page does not offer, or none, is not a form it served.
    for (const kind of ['redec_dispute', '']) {
      const refused = await recordsNothingAtAll(api, () => submit(center, requestForm(center), { kind }));
      expect(refused.headers.location).toMatch(/\?done=refused$/);
    }
  });

  it('shows the accesses under each consent with their outcome, and what a denied one was denied for', async () => {
    const consent = await consents.grant();
    const authorized = await post('/v1/redec/accesses/authorize', initialWindowAccess(consent.redecConsentId));
    expect(authorized.body.decision.status).toBe('authorized');
    expect((await post(`/v1/redec/accesses/${authorized.body.decision.redecAccessId}/confirm`, { outcome: { kind: 'accessed', accessedAt: Date.now() - 1_000 } })).status).toBe(200);
    const denied = await post('/v1/redec/accesses/authorize', { ...initialWindowAccess(consent.redecConsentId), objectiveCode: '04' });
    expect(denied.body.decision).toMatchObject({ status: 'denied', denyReasonCode: 'redec_objective_not_granted' });
    const center = await openCenter((await openSession({ customerId: consent.customerId })).body.url);
    expect(center.page.text).toContain('Consulta autorizada: el banco consultó el registro.');
    expect(center.page.text).toContain('Consulta rechazada: usted no autorizó ese objetivo. No se consultó el registro.');
    expect(center.page.text).toContain(`${TEST_PRESENTATION.terms.objective['04']} <span class="code">(código 04)</span>`);
  });

  it('answers an altered or made-up address as unknown, naming no bank, and another page’s reference opens nothing', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId })).body;
    const { pathname, search } = new URL(opened.url);
    const altered = pathname.slice(0, -2) + (pathname.endsWith('AA') ? 'BB' : 'AA');
    for (const target of [altered + search, `/privacy-center/pages/made-up${search}`, `${pathname}?token=wrong`]) {
      const answer = await api.http.get(target);
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('Enlace no válido');
      expect(answer.text).not.toContain(TEST_PRESENTATION.displayName);
    }
    const reference = pathname.split('/').pop();
    expect((await api.http.get(`/embed/pages/${reference}${search}`)).status).toBe(404);
  });

  it('ends the session when the person asks, clearing the cookie; the link and cookie open nothing afterwards and a post records nothing', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId })).body;
    const center = await openCenter(opened.url);
    const endForm = center.forms.find((f) => f.action.endsWith('/end'))!;
    // Not from the page: refused, the session stays open.
    const forged = await recordsNothingAtAll(api, () => submit(center, endForm, { csrf: 'forged' }));
    expect(forged.headers.location).toMatch(/\?done=refused$/);

    const ended = await submit(center, endForm);
    expect(ended.status).toBe(200);
    expect(ended.text).toContain('<h1>Sesión cerrada</h1>');
    const [cleared] = [ended.headers['set-cookie']].flat() as string[];
    expect(cleared).toMatch(new RegExp(`^${PRIVACY_CENTER_COOKIE}=;.*Expires=Thu, 01 Jan 1970`));
    expect((await api.store.readStream(embedStreams.privacyCenterSession(tenantId, opened.sessionId))).map((e) => e.type)).toEqual(['PrivacyCenterSessionOpened', 'PrivacyCenterSessionEnded']);

    const { pathname, search } = new URL(opened.url);
    for (const answer of [await api.http.get(pathname).set({ cookie: center.cookie }), await api.http.get(pathname + search)]) {
      expect(answer.status).toBe(410);
      expect(answer.text).toContain('Sesión cerrada');
    }
    const posted = await recordsNothingAtAll(api, () => submit(center, revokeForm(center, consent.redecConsentId)));
    expect(posted.status).toBe(410);
    expect((await get(`/v1/redec/consents/${consent.redecConsentId}`)).body.status).toBe('granted');
  });

  it('ends a session when the bank asks (DELETE), once; another tenant’s or an unknown session is not found', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId })).body;
    const center = await openCenter(opened.url);
    const end = (sessionId: string, apiKey = key) => api.http.delete(`/v1/privacy-center/sessions/${sessionId}`).set('Authorization', `Bearer ${apiKey}`);
    const { apiKey: readOnly } = await api.tenantKey(['consent:read']);
    const { apiKey: otherTenant } = await api.tenantKey(['consent:write']);
    await recordsNothingAtAll(api, async () => {
      expectProblem(await end(opened.sessionId, readOnly), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await end(opened.sessionId, otherTenant), 404, 'NOT_FOUND');
      expectProblem(await end(randomUUID()), 404, 'NOT_FOUND');
    });
    expect((await end(opened.sessionId)).status).toBe(204);
    const page = await api.http.get(new URL(opened.url).pathname).set({ cookie: center.cookie });
    expect(page.status).toBe(410);
    expect(page.text).toContain('Sesión cerrada');
    // Over already: answered the same, nothing recorded.
    expect((await recordsNothingAtAll(api, () => end(opened.sessionId))).status).toBe(204);
  });

  it('shows nothing and records nothing once the session has expired', async () => {
    const consent = await consents.grant();
    const opened = (await openSession({ customerId: consent.customerId, expiresInSeconds: 60 })).body;
    const center = await openCenter(opened.url);
    // The same store and Redis, read by the service on a clock past the session's end.
    const later = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external', LEDGER_CLOCK_OFFSET_MS: String(2 * MINUTE) });
    try {
      const page = await later.http.get(new URL(opened.url).pathname).set({ cookie: center.cookie });
      expect(page.status).toBe(410);
      expect(page.text).toContain('Este enlace venció');
      const form = revokeForm(center, consent.redecConsentId);
      const posted = await recordsNothingAtAll(api, () => later.http.post(form.action).set({ origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin', cookie: center.cookie }).type('form').send(form.fields));
      expect(posted.status).toBe(410);
    } finally {
      await later.close();
    }
  });
});

/** Every form of a page: its action, and its hidden fields. */
function formsOf(html: string): PageForm[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map(([, action, body]) => ({
    action,
    fields: Object.fromEntries([...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]])),
  }));
}
