import { randomUUID } from 'node:crypto';
import { embedDecisionIdFor, embedStreams, verifyResultQuery } from '@ledger/embed';
import { consentStreams } from '@ledger/consents';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { OpenedConsentPage, openConsentPage } from './support/consent-page';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { REDEC_TERMS, TEST_PRESENTATION, rutOf } from './support/redec-fixtures';

// Embedded capture through the real HTTP stack, SQLite store and Redis: the
// session API, the consent page's protections (token, CSRF, frame-ancestors,
// single use) and the consent recorded on acceptance. The page is driven by a
// real browser in embedded-capture.browser.e2e-spec.ts; here its form is posted
// as a browser would, so each protection can be broken on purpose.

const PUBLIC_URL = 'http://127.0.0.1:3999';
const INTEGRATOR = 'https://www.bank.example';

describe('embed sessions: POST /v1/embed/sessions and the consent page', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let otherKey: string;
  let tenantId: string;
  let redecEmbedded: { configurationId: string; templateKey: string };
  let generalEmbedded: { configurationId: string; templateKey: string };
  let deferred: string;

  let nextRutBody = 21_000_000;
  const freshRut = () => rutOf((nextRutBody += 7919));
  const post = (path: string, body: unknown, apiKey = key) => api.http.post(path).set('Authorization', `Bearer ${apiKey}`).send(body as object);
  const get = (path: string, apiKey = key) => api.http.get(path).set('Authorization', `Bearer ${apiKey}`);

  async function publish(body: Record<string, unknown>): Promise<{ configurationId: string; templateKey: string }> {
    const templateKey = `embedded-${randomUUID()}`;
    const published = await post('/v1/configurations', {
      templateKey,
      title: 'Consulta al Registro de Deuda Consolidada',
      text: 'Autorizo la consulta de mi deuda consolidada.\nPuedo revocar este consentimiento.',
      channel: 'digital',
      captureTiming: 'embedded',
      redec: REDEC_TERMS,
      embed: { allowedOrigins: [INTEGRATOR] },
      ...body,
    });
    expect(published.status).toBe(201);
    return { configurationId: published.body.configurationId, templateKey };
  }

  // The baseline profile asks the digital channel for an identifier verified by the integrator.
  const verification = () => ({ method: 'clave_unica', sourceReference: `auth-${randomUUID()}`, verifiedAt: Date.now() - 60_000 });
  const customer = () => ({ userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: freshRut(), verification: verification() }] });
  const open = (body: Record<string, unknown> = {}, apiKey = key) =>
    post('/v1/embed/sessions', { configurationId: redecEmbedded.configurationId, ...customer(), returnUrl: `${INTEGRATOR}/consent/return?step=2`, dynamicReference: 'onboarding-77', ...body }, apiKey);

  const pageOf = (url: string) => openConsentPage(api, url);
  /** What the browser sends: the page's form to its action, with the page's cookie and its own origin. */
  function submit(
    { action, cookie }: OpenedConsentPage,
    form: Record<string, string>,
    headers: Record<string, string> = { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin', ...(cookie ? { cookie } : {}) },
  ) {
    return api.http.post(action!).set(headers).type('form').send(form);
  }

  beforeAll(async () => {
    environment = testEnvironment();
    // The certificate worker runs elsewhere, so a refused request can be checked to move nothing in the store.
    api = await startApiApp(environment, { LEDGER_PUBLIC_URL: PUBLIC_URL, LEDGER_WORKERS: 'external' });
    ({ apiKey: key, tenantId } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    ({ apiKey: otherKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    redecEmbedded = await publish({});
    generalEmbedded = await publish({ redec: undefined, title: 'Términos del servicio', text: 'Acepto los términos del servicio.' });
    deferred = (await publish({ captureTiming: 'deferred_external', embed: undefined })).configurationId;
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('resolves the customer inline and answers the session, a page URL on the public URL with a token, and its expiry', async () => {
    const before = Date.now();
    const opened = await open({ expiresInSeconds: 300 });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual({
      sessionId: expect.any(String),
      customerId: expect.any(String),
      url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/embed/pages/[A-Za-z0-9_-]{80}\\?token=[A-Za-z0-9_-]{43}$`)),
      expiresAt: expect.any(Number),
      customerCreated: true,
      resultSecret: expect.stringMatching(/^embsec_/),
    });
    // The address names no tenant and no session in clear: what a person sees holds no internal id.
    expect(opened.body.url).not.toContain(tenantId);
    expect(opened.body.url).not.toContain(opened.body.sessionId);
    expect(opened.body.expiresAt).toBeGreaterThanOrEqual(before + 300_000);
    expect(opened.body.expiresAt).toBeLessThanOrEqual(Date.now() + 300_000);
    const status = await get(`/v1/embed/sessions/${opened.body.sessionId}`);
    expect(status.body).toMatchObject({ status: 'open', customerId: opened.body.customerId, dynamicReference: 'onboarding-77', decidedAt: null, consent: null });
  });

  it("keeps the data subject's name for the certificates of what they accept, under their own key, and none when the bank sends none", async () => {
    const interactionOf = async (sessionId: string) => {
      const [opened] = await api.store.readStream(embedStreams.session(tenantId, sessionId));
      const { interactionId } = (opened.data as { items: Array<{ interactionId: string }> }).items[0];
      const [created] = await api.store.readStream(redecStreams.interaction(tenantId, interactionId));
      return created.data as { dataSubjectNameCiphertext: string | null };
    };
    const named = await open({ dataSubjectName: 'María José Pérez Soto' });
    expect(named.status).toBe(201);
    const { dataSubjectNameCiphertext } = await interactionOf(named.body.sessionId);
    expect(dataSubjectNameCiphertext).toEqual(expect.any(String));
    expect(dataSubjectNameCiphertext).not.toContain('María');
    expect((await interactionOf((await open()).body.sessionId)).dataSubjectNameCiphertext).toBeNull();
    expectValidationError(await recordsNothingAtAll(api, () => open({ dataSubjectName: 'María\u202eetoS' })), [{ field: 'dataSubjectName', reason: 'bidi_control', codePoint: 'U+202E' }]);
  });

  it('opens a session for a customer resolved earlier, by customerId', async () => {
    const resolved = await post('/v1/customers/resolve', customer());
    const opened = await post('/v1/embed/sessions', { configurationId: redecEmbedded.configurationId, customerId: resolved.body.customerId });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ customerId: resolved.body.customerId, customerCreated: false });
  });

  it('serves the configuration on a page only the allowed origins may frame, posting only to itself and the return origin', async () => {
    const opened = await open();
    const { page, hidden, action } = await pageOf(opened.body.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors ${INTEGRATOR}`);
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${INTEGRATOR}`);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.text).toContain('Consulta al Registro de Deuda Consolidada');
    expect(page.text).toContain('Puedo revocar este consentimiento.');
    expect(page.text).toContain('Banco Ejemplo');
    expect(action).toBe(`${new URL(opened.body.url).pathname}/decision`);
    expect(Object.keys(hidden)).toEqual(['csrf']);
  });

  it('exchanges the URL’s token for a cookie of the session’s page alone, and sends the browser to the address without it', async () => {
    const opened = await open();
    const { pathname, search, searchParams } = new URL(opened.body.url);
    const token = searchParams.get('token')!;
    const exchange = await api.http.get(pathname + search);
    expect(exchange.status).toBe(303);
    expect(exchange.headers.location).toBe(pathname);
    expect(exchange.headers['cache-control']).toBe('no-store');
    const [setCookie, ...others] = [exchange.headers['set-cookie']].flat();
    expect(others).toEqual([]);
    const [pair, ...attributes] = setCookie.split('; ');
    expect(pair).toBe(`__Secure-consent-page=${token}`);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Partitioned', `Path=${pathname}`, 'SameSite=None', 'Secure']);

    // The page is served on the cookie alone, and carries no token.
    const page = await api.http.get(pathname).set('cookie', pair);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Consulta al Registro de Deuda Consolidada');
    expect(page.text).not.toContain(token);
    // Without it, the address tells the person to open the link they were given, and names nothing of the session.
    const bare = await api.http.get(pathname);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain('Abra el enlace que recibió');
    expect(bare.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // The link stays valid until the session is decided: opened again (another tab, another browser), it is exchanged again.
    const again = await api.http.get(pathname + search);
    expect(again.status).toBe(303);
    expect([again.headers['set-cookie']].flat()[0].split('; ')[0]).toBe(pair);
  });

  it('refuses, recording nothing, a decision without the page’s cookie or one carrying neither Origin nor Sec-Fetch-Site', async () => {
    const opened = await open();
    const page = await pageOf(opened.body.url);
    const form = { ...page.hidden, decision: 'accept' };
    const attempts = [
      // The form and a browser's headers, but not the browser that opened the page.
      () => submit(page, form, { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' }),
      // The cookie and the form, from a client that says nothing of where it posts from: not a browser's form post.
      () => submit(page, form, { cookie: page.cookie! }),
    ];
    for (const attempt of attempts) {
      const refused = await recordsNothingAtAll(api, attempt);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Respuesta no registrada');
    }
    expect((await get(`/v1/embed/sessions/${opened.body.sessionId}`)).body.status).toBe('open');
  });

  it('refuses to be framed at all when the configuration lists no origins', async () => {
    const bare = await publish({ embed: undefined });
    const opened = await open({ configurationId: bare.configurationId, returnUrl: 'https://anywhere.example/back' });
    expect(opened.status).toBe(201);
    const { page } = await pageOf(opened.body.url);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('records the REDEC grant at the receipt of the acceptance and redirects with a signed result carrying only status and reference', async () => {
    const opened = await open();
    const page = await pageOf(opened.body.url);
    const before = Date.now();
    const decided = await submit(page, { ...page.hidden, decision: 'accept' });
    const after = Date.now();
    expect(decided.status).toBe(303);
    const location = new URL(decided.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(`${INTEGRATOR}/consent/return`);
    expect([...location.searchParams.keys()]).toEqual(['step', 'embed_session_id', 'status', 'reference', 'timestamp', 'signature']);
    expect(location.searchParams.get('status')).toBe('accepted');
    expect(location.searchParams.get('reference')).toBe('onboarding-77');
    const query = decided.headers.location.split('?')[1];
    expect(verifyResultQuery(opened.body.resultSecret, query)).toBe(true);
    expect(verifyResultQuery(opened.body.resultSecret, query.replace('status=accepted', 'status=declined'))).toBe(false);

    const status = await get(`/v1/embed/sessions/${opened.body.sessionId}`);
    expect(status.body).toMatchObject({ status: 'accepted', consent: { kind: 'redec', consentId: expect.any(String), internalConsentCode: expect.stringMatching(/^[0-9A-Z]{20}$/) } });
    expect(status.body.decidedAt).toBeGreaterThanOrEqual(before);
    expect(status.body.decidedAt).toBeLessThanOrEqual(after);
    const consent = await get(`/v1/redec/consents/${status.body.consent.consentId}`);
    expect(consent.body).toMatchObject({ status: 'granted', captureTiming: 'embedded', customerId: opened.body.customerId, grantedAt: status.body.decidedAt, finalityCode: '2' });
    const evidence = await get(`/v1/redec/consents/${status.body.consent.consentId}/evidence`);
    expect(evidence.body.canonicalTiming).toEqual({ clock: 'recorded_at', grantedAt: status.body.decidedAt });
    const history = await api.store.readStream(`redec-consent-${(await api.store.readAll({ after: 0 })).find((e) => e.type === 'ConsentGranted' && (e.data as { redecConsentId: string }).redecConsentId === status.body.consent.consentId)!.metadata.tenantId}-${status.body.consent.consentId}`);
    expect(history[0].data).toMatchObject({ grantedAt: status.body.decidedAt, recordedAt: status.body.decidedAt, sourceSystem: 'ledger-embedded-consent-page', sourceReference: 'onboarding-77' });
  });

  it('refuses a replay of a used session: the page and the form answer "already used" and record nothing', async () => {
    const opened = await open();
    const page = await pageOf(opened.body.url);
    expect((await submit(page, { ...page.hidden, decision: 'decline' })).status).toBe(303);
    const replayed = await recordsNothingAtAll(api, () => submit(page, { ...page.hidden, decision: 'accept' }));
    expect(replayed.status).toBe(409);
    expect(replayed.headers['content-type']).toBe('text/html; charset=utf-8');
    // Shown where the decision was made, inside the integrator's frame.
    expect(replayed.headers['content-security-policy']).toContain(`frame-ancestors ${INTEGRATOR}`);
    // The link again, and the page's own address with the cookie (the way back): both say so, and set no cookie.
    const reopened = await pageOf(opened.body.url);
    expect(reopened.exchange.status).toBe(409);
    expect(reopened.cookie).toBeUndefined();
    expect(reopened.action).toBeUndefined();
    const back = await api.http.get(new URL(opened.body.url).pathname).set('cookie', page.cookie!);
    expect(back.status).toBe(409);
    expect(back.text).toContain('Este enlace ya fue usado');
    // Its token shown, the page says whose it is.
    expect(back.text).toContain(`<header class="bank"><p>${TEST_PRESENTATION.displayName}</p></header>`);
    expect((await get(`/v1/embed/sessions/${opened.body.sessionId}`)).body).toMatchObject({ status: 'declined', consent: null });
  });

  it('refuses a decision posted from another site, without the CSRF token or with another session’s, recording nothing', async () => {
    const opened = await open();
    const page = await pageOf(opened.body.url);
    const { hidden, cookie } = page;
    const other = await pageOf((await open()).body.url);
    const attempts = [
      submit(page, { ...hidden, decision: 'accept' }, { cookie: cookie!, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      submit(page, { ...hidden, decision: 'accept' }, { cookie: cookie!, origin: 'https://evil.example' }),
      submit(page, { ...hidden, decision: 'accept' }, { cookie: cookie!, 'sec-fetch-site': 'same-site' }),
      submit(page, { decision: 'accept' }),
      submit(page, { ...hidden, csrf: other.hidden.csrf, decision: 'accept' }),
      submit(page, { ...hidden, decision: 'maybe' }),
    ];
    for (const attempt of attempts) {
      const refused = await recordsNothingAtAll(api, () => attempt);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Respuesta no registrada');
    }
    expect((await get(`/v1/embed/sessions/${opened.body.sessionId}`)).body.status).toBe('open');
  });

  it('answers a wrong token, another session’s token, an altered or made-up page reference as an unknown session', async () => {
    const opened = await open();
    const other = await open();
    const { pathname, searchParams } = new URL(opened.body.url);
    const token = searchParams.get('token')!;
    const page = await pageOf(opened.body.url);
    const reference = pathname.slice('/embed/pages/'.length);
    const altered = Buffer.from(reference, 'base64url');
    altered[20] ^= 1;
    for (const path of [
      `${pathname}?token=${'A'.repeat(43)}`,
      `${new URL(other.body.url).pathname}?token=${token}`,
      `/embed/pages/${altered.toString('base64url')}?token=${token}`,
      '/embed/pages/y?token=z',
    ]) {
      const answer = await api.http.get(path);
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('Enlace no válido');
      // A wrong link learns no bank's name.
      expect(answer.text).not.toContain('class="bank"');
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    const forged = `__Secure-consent-page=${'A'.repeat(43)}`;
    expect((await api.http.get(pathname).set('cookie', forged)).status).toBe(404);
    expect((await recordsNothingAtAll(api, () => submit(page, { ...page.hidden, decision: 'accept' }, { cookie: forged, origin: PUBLIC_URL }))).status).toBe(404);
    expectProblem(await get(`/v1/embed/sessions/${opened.body.sessionId}`, otherKey), 404, 'NOT_FOUND');
  });

  it('records a general consent on acceptance, and without a returnUrl shows the outcome itself', async () => {
    const opened = await open({ configurationId: generalEmbedded.configurationId, returnUrl: undefined, dynamicReference: undefined });
    const consentPage = await pageOf(opened.body.url);
    expect(consentPage.page.text).not.toContain('Finalidad');
    const decided = await submit(consentPage, { ...consentPage.hidden, decision: 'accept' });
    expect(decided.status).toBe(200);
    expect(decided.text).toContain('Consentimiento otorgado');
    expect(decided.text).toContain(`<header class="bank"><p>${TEST_PRESENTATION.displayName}</p></header>`);
    const status = await get(`/v1/embed/sessions/${opened.body.sessionId}`);
    expect(status.body).toMatchObject({ status: 'accepted', dynamicReference: null, consent: { kind: 'general', consentId: expect.any(String) } });
    const consent = await get(`/v1/consents/${status.body.consent.consentId}`);
    expect(consent.body).toMatchObject({
      kind: 'general',
      status: 'granted',
      templateKey: generalEmbedded.templateKey,
      configurationVersion: 1,
      captureTiming: 'embedded',
      grantedAt: status.body.decidedAt,
      recordedAt: status.body.decidedAt,
    });
  });

  it('refuses, recording nothing, a configuration not captured embedded, a return URL off the allowed origins, and bad fields', async () => {
    expectProblem(await recordsNothingAtAll(api, () => open({ configurationId: deferred })), 409, 'configuration_not_embedded');
    expectProblem(await recordsNothingAtAll(api, () => open({ configurationId: randomUUID() })), 404, 'NOT_FOUND');
    expectValidationError(await recordsNothingAtAll(api, () => open({ returnUrl: 'https://evil.example/back' })), [{ field: 'returnUrl', reason: 'return_url_origin_not_allowed' }]);
    expectValidationError(await recordsNothingAtAll(api, () => open({ returnUrl: 'http://www.bank.example/back' })), [{ field: 'returnUrl', reason: 'invalid_return_url' }]);
    expectValidationError(await recordsNothingAtAll(api, () => open({ returnUrl: `${INTEGRATOR}/back#done` })), [{ field: 'returnUrl', reason: 'invalid_return_url' }]);
    expectValidationError(await recordsNothingAtAll(api, () => open({ expiresInSeconds: 5 })), [{ field: 'expiresInSeconds', reason: expect.any(String) }]);
    expectValidationError(await recordsNothingAtAll(api, () => open({ customerId: randomUUID() })), [{ field: 'userReference', reason: 'not_with_customer_id' }]);
    expectProblem(await recordsNothingAtAll(api, () => open({}, otherKey)), 404, 'NOT_FOUND');
  });

  it('needs consent:write to open a session, and consent:identity-assert to send a verification', async () => {
    const { apiKey: reader } = await api.tenantKey(['consent:read']);
    expectProblem(await open({}, reader), 403, 'INSUFFICIENT_SCOPE');
    const { apiKey: writerOnly } = await api.tenantKey(['consent:write']);
    expectProblem(await recordsNothingAtAll(api, () => open({}, writerOnly)), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await api.http.post('/v1/embed/sessions').send({}), 401, 'UNAUTHENTICATED');
  });

  describe('a session of several configurations', () => {
    const openSeveral = (configurationIds: string[], body: Record<string, unknown> = {}) => open({ configurationId: undefined, configurationIds, ...body });
    const radios = (text: string) => [...text.matchAll(/<input type="radio" name="([^"]+)" value="([^"]+)" required>/g)].map((m) => `${m[1]}=${m[2]}`);

    it('offers them on one page, each decided on its own, recorded as one decision, with a signed redirect naming each', async () => {
      const opened = await openSeveral([redecEmbedded.configurationId, generalEmbedded.configurationId]);
      expect(opened.status).toBe(201);
      const consentPage = await pageOf(opened.body.url);
      const { page, hidden } = consentPage;
      expect(page.status).toBe(200);
      expect(page.headers['content-security-policy']).toContain(`frame-ancestors ${INTEGRATOR}`);
      expect(page.text).toContain('Consulta al Registro de Deuda Consolidada');
      expect(page.text).toContain('Acepto los términos del servicio.');
      expect(radios(page.text)).toEqual(['decision-0=accept', 'decision-0=decline', 'decision-1=accept', 'decision-1=decline']);
      expect(Object.keys(hidden)).toEqual(['csrf']);
      expect((await get(`/v1/embed/sessions/${opened.body.sessionId}`)).body).toMatchObject({ status: 'open', configurationId: null, decisionId: null, items: [
        { configurationId: redecEmbedded.configurationId, decision: null, consent: null },
        { configurationId: generalEmbedded.configurationId, decision: null, consent: null },
      ] });

      const decided = await submit(consentPage, { ...hidden, 'decision-0': 'accept', 'decision-1': 'decline' });
      expect(decided.status).toBe(303);
      const location = new URL(decided.headers.location);
      expect([...location.searchParams.keys()]).toEqual(['step', 'embed_session_id', 'status', 'accepted', 'declined', 'reference', 'timestamp', 'signature']);
      expect([location.searchParams.get('status'), location.searchParams.get('accepted'), location.searchParams.get('declined')]).toEqual([
        'partially_accepted',
        redecEmbedded.configurationId,
        generalEmbedded.configurationId,
      ]);
      expect(verifyResultQuery(opened.body.resultSecret, decided.headers.location.split('?')[1])).toBe(true);

      const status = await get(`/v1/embed/sessions/${opened.body.sessionId}`);
      expect(status.body).toMatchObject({
        status: 'partially_accepted',
        configurationId: null,
        consent: null,
        decisionId: expect.any(String),
        items: [
          { configurationId: redecEmbedded.configurationId, decision: 'accepted', consent: { kind: 'redec', consentId: expect.any(String), internalConsentCode: expect.stringMatching(/^[0-9A-Z]{20}$/) } },
          { configurationId: generalEmbedded.configurationId, decision: 'declined', consent: null },
        ],
      });
      const [accepted] = status.body.items;
      const decision = await get(`/v1/consent-decisions/${status.body.decisionId}`);
      expect(decision.body).toEqual({
        decisionId: status.body.decisionId,
        customerId: opened.body.customerId,
        occurredAt: status.body.decidedAt,
        recordedAt: status.body.decidedAt,
        embedSessionId: opened.body.sessionId,
        items: [
          { configurationId: redecEmbedded.configurationId, decision: 'accepted', redecConsentId: accepted.consent.consentId, internalConsentCode: accepted.consent.internalConsentCode },
          { configurationId: generalEmbedded.configurationId, decision: 'declined' },
        ],
      });
      expect((await get(`/v1/redec/consents/${accepted.consent.consentId}`)).body).toMatchObject({ status: 'granted', captureTiming: 'embedded', grantedAt: status.body.decidedAt });
      expect((await get(`/v1/customers/${opened.body.customerId}/consents`)).body.consents).toHaveLength(1);
    });

    it('refuses a form that does not decide every item, recording nothing', async () => {
      const opened = await openSeveral([redecEmbedded.configurationId, generalEmbedded.configurationId]);
      const page = await pageOf(opened.body.url);
      const forms: Array<Record<string, string>> = [{ 'decision-0': 'accept' }, { decision: 'accept' }, { 'decision-0': 'accept', 'decision-1': 'maybe' }, { 'decision-0': 'accept', 'decision-1': 'constructor' }];
      for (const form of forms) {
        const refused = await recordsNothingAtAll(api, () => submit(page, { ...page.hidden, ...form }));
        expect(refused.status).toBe(403);
      }
      expect((await get(`/v1/embed/sessions/${opened.body.sessionId}`)).body.status).toBe('open');
    });

    it('lets only an origin every configuration allows frame the page', async () => {
      const wider = await publish({ embed: { allowedOrigins: [INTEGRATOR, 'https://partner.example'] } });
      const framed = await pageOf((await openSeveral([wider.configurationId, redecEmbedded.configurationId])).body.url);
      expect(framed.page.headers['content-security-policy']).toContain(`frame-ancestors ${INTEGRATOR};`);
      const unframed = await publish({ embed: undefined, redec: undefined });
      const opened = await openSeveral([redecEmbedded.configurationId, unframed.configurationId]);
      expect(opened.status).toBe(201);
      const never = await pageOf(opened.body.url);
      expect(never.page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });

    it('refuses, recording nothing, a configuration twice, both forms at once, or one that is not embedded, of another tenant or off the return origin, naming it', async () => {
      const [a, b] = [redecEmbedded.configurationId, generalEmbedded.configurationId];
      expectValidationError(await recordsNothingAtAll(api, () => openSeveral([a, b, a])), [{ field: 'configurationIds[2]', reason: 'duplicate' }]);
      expectValidationError(await recordsNothingAtAll(api, () => open({ configurationIds: [a, b] })), [{ field: 'configurationIds', reason: 'not_with_configuration_id' }], 'configuration_reference_required');
      expectValidationError(await recordsNothingAtAll(api, () => open({ configurationId: undefined })), [{ field: 'configurationId', reason: 'required' }]);
      const notEmbedded = await recordsNothingAtAll(api, () => openSeveral([a, deferred]));
      expectProblem(notEmbedded, 409, 'configuration_not_embedded');
      expect(notEmbedded.body.errors).toEqual([{ field: 'configurationIds[1]', reason: 'configuration_not_embedded' }]);
      const unknown = await recordsNothingAtAll(api, () => openSeveral([randomUUID(), a]));
      expectProblem(unknown, 404, 'NOT_FOUND');
      expect(unknown.body.errors).toEqual([{ field: 'configurationIds[0]', reason: 'NOT_FOUND' }]);
      const elsewhere = await publish({ embed: { allowedOrigins: ['https://partner.example'] } });
      expectValidationError(await recordsNothingAtAll(api, () => openSeveral([a, elsewhere.configurationId])), [{ field: 'returnUrl', reason: 'return_url_origin_not_allowed' }]);
      expectValidationError(await recordsNothingAtAll(api, () => openSeveral([])), [{ field: 'configurationIds', reason: 'too_few_items' }]);
    });

    it('records the decision and its consents on the next read when the process stopped after the page decision', async () => {
      const opened = await openSeveral([redecEmbedded.configurationId, generalEmbedded.configurationId]);
      const stream = embedStreams.session(tenantId, opened.body.sessionId);
      const [openedFact] = await api.store.readStream(stream);
      const decidedAt = Date.now();
      // What the page's post leaves when the process stops right after its single-use claim.
      await api.store.append(
        stream,
        [{ id: randomUUID(), type: 'EmbedSessionDecided', data: { sessionId: opened.body.sessionId, outcome: 'accepted', decisions: ['accepted', 'accepted'], decidedAt }, metadata: { ...openedFact.metadata, actor: 'embed-consent-page', recordedAt: decidedAt } }],
        openedFact.revision,
      );
      const decisionStream = consentStreams.decision(tenantId, embedDecisionIdFor(tenantId, opened.body.sessionId));
      expect(await api.store.readStream(decisionStream)).toEqual([]);

      const status = await get(`/v1/embed/sessions/${opened.body.sessionId}`);
      expect(status.body).toMatchObject({ status: 'accepted', decidedAt, items: [{ consent: { kind: 'redec' } }, { consent: { kind: 'general' } }] });
      const [redecItem, generalItem] = status.body.items;
      const again = await recordsNoFact(api, () => get(`/v1/embed/sessions/${opened.body.sessionId}`));
      expect(again.body).toEqual(status.body);
      expect((await api.store.readStream(decisionStream)).map((e) => e.type)).toEqual(['ConsentDecisionRecorded']);
      const grants = (await api.store.readAll({ after: 0 })).filter(
        (e) => (e.type === 'ConsentGranted' && (e.data as { redecConsentId: string }).redecConsentId === redecItem.consent.consentId) || (e.type === 'GeneralConsentGranted' && (e.data as { consentId: string }).consentId === generalItem.consent.consentId),
      );
      expect(grants.map((e) => [e.type, (e.data as { grantedAt: number }).grantedAt])).toEqual([
        ['ConsentGranted', decidedAt],
        ['GeneralConsentGranted', decidedAt],
      ]);
    });
  });

  describe('the bank and its terms as the page shows them (decision 0075)', () => {
    const putPresentation = (body: unknown, apiKey = key) => api.http.put('/v1/tenant-settings/presentation').set('Authorization', `Bearer ${apiKey}`).send(body as object);
    let ownKey: string;

    beforeAll(async () => {
      ({ apiKey: ownKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    });

    it("names the bank, shows each code after its meaning, and paints the bank's colour under a policy that allows it", async () => {
      const set = await putPresentation(
        { displayName: 'Banco Ejemplo', accentColor: '#8A1538', terms: { finality: { '2': 'Evaluar si le damos un crédito' }, objective: { '02': 'Crédito nuevo', '03': 'Renegociación' } } },
        ownKey,
      );
      expect(set.status).toBe(200);
      expect(set.body.presentation).toEqual({
        displayName: 'Banco Ejemplo',
        logo: null,
        accentColor: '#8a1538',
        terms: { finality: { '2': 'Evaluar si le damos un crédito' }, objective: { '02': 'Crédito nuevo', '03': 'Renegociación' } },
      });
      const configurationId = (
        await post('/v1/configurations', { templateKey: `embedded-${randomUUID()}`, title: 'Consulta REDEC', text: 'Autorizo la consulta.', channel: 'digital', captureTiming: 'embedded', redec: REDEC_TERMS }, ownKey)
      ).body.configurationId;
      const opened = await open({ configurationId }, ownKey);
      expect(opened.status).toBe(201);
      const { page } = await pageOf(opened.body.url);
      expect(page.text).toContain('<header class="bank"><p>Banco Ejemplo</p></header>');
      expect(page.text).toContain('<p>Evaluar si le damos un crédito <span class="code">(código 2)</span></p>');
      expect(page.text).toContain('<li>Crédito nuevo <span class="code">(código 02)</span></li><li>Renegociación <span class="code">(código 03)</span></li>');
      expect(page.text).toMatch(/<li>Su información de deudas en el Registro de Deuda Consolidada \(REDEC\)[^<]* <span class="code">\(código redec\.consolidated_debt_record\)<\/span><\/li>/);
      expect(page.text).toContain('<style>:root{--accent:#8a1538}</style>');
      expect(page.headers['content-security-policy']).toMatch(/style-src 'sha256-[^']+' 'sha256-[^']+';/);

      // A meaning the bank removes after the session opened: the code is named as a code, never shown as nothing.
      await putPresentation({ displayName: 'Banco Ejemplo', accentColor: '#8A1538', terms: { finality: { '2': 'Evaluar si le damos un crédito' }, objective: { '02': 'Crédito nuevo' } } }, ownKey);
      const after = await api.http.get(new URL(opened.body.url).pathname).set({ cookie: (await pageOf(opened.body.url)).cookie! });
      expect(after.text).toContain('<li>Crédito nuevo <span class="code">(código 02)</span></li><li>Código 03</li>');
    });

    it('refuses to open a page that would show a code without its meaning, naming where the meaning goes, and records nothing', async () => {
      const configurationId = (
        await post('/v1/configurations', { templateKey: `embedded-${randomUUID()}`, title: 'Consulta REDEC', text: 'Autorizo la consulta.', channel: 'digital', captureTiming: 'embedded', redec: { ...REDEC_TERMS, objectiveCodes: ['02', '09'] } }, ownKey)
      ).body.configurationId;
      await putPresentation({ displayName: 'Banco Ejemplo', accentColor: '#8a1538', terms: { objective: { '02': 'Crédito nuevo' } } }, ownKey);
      const refused = await recordsNothingAtAll(api, () => open({ configurationId }, ownKey));
      expectProblem(refused, 409, 'readable_terms_missing');
      expect(refused.body.errors).toEqual([
        { field: 'presentation.terms.finality.2', reason: 'readable_terms_missing' },
        { field: 'presentation.terms.objective.09', reason: 'readable_terms_missing' },
      ]);
    });

    it('refuses a colour that cannot be read against white, and a presentation without a name, changing nothing', async () => {
      const before = (await get('/v1/tenant-settings', ownKey)).body;
      const lowContrast = await recordsNothingAtAll(api, () => putPresentation({ displayName: 'Banco Ejemplo', accentColor: '#7a9cd6', terms: {} }, ownKey));
      expectValidationError(lowContrast, [{ field: 'accentColor', reason: 'insufficient_contrast' }]);
      const unnamed = await recordsNothingAtAll(api, () => putPresentation({ displayName: '  ', accentColor: '#0b3d91', terms: {} }, ownKey));
      expectValidationError(unnamed, [{ field: 'displayName', reason: 'invalid_length' }]);
      // A code named as something every object has would be dropped in silence by the transformation: it is refused by name.
      const inherited = await recordsNothingAtAll(api, () =>
        api.http.put('/v1/tenant-settings/presentation').set('Authorization', `Bearer ${ownKey}`).set('content-type', 'application/json').send('{"displayName":"B","accentColor":"#0b3d91","terms":{"objective":{"constructor":"x","02":"Nuevo"}}}'),
      );
      expectValidationError(inherited, [{ field: 'terms.objective.constructor', reason: 'unknown_property' }]);
      expect((await get('/v1/tenant-settings', ownKey)).body).toEqual(before);
    });

    it('keeps the presentation when the other settings are replaced', async () => {
      await putPresentation({ displayName: 'Banco Ejemplo', accentColor: '#0b3d91', terms: {} }, ownKey);
      const replaced = await api.http.put('/v1/tenant-settings').set('Authorization', `Bearer ${ownKey}`).send({ institutionCode: '0000000042' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ institutionCode: '0000000042', presentation: { displayName: 'Banco Ejemplo', logo: null, accentColor: '#0b3d91', terms: {} } });
    });

    it('writes the logo into the page, allowing images from the page itself and nowhere else', async () => {
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#8a1538"/></svg>').toString('base64');
      const set = await putPresentation({ displayName: 'Banco Ejemplo', logo: { mediaType: 'image/svg+xml', base64: svg }, accentColor: '#0b3d91', terms: { finality: { '2': 'Evaluar' }, objective: { '02': 'Nuevo', '03': 'Renegociar' } } }, ownKey);
      expect(set.body.presentation.logo).toEqual({ mediaType: 'image/svg+xml', base64: svg });
      const configurationId = (
        await post('/v1/configurations', { templateKey: `embedded-${randomUUID()}`, title: 'Consulta REDEC', text: 'Autorizo la consulta.', channel: 'digital', captureTiming: 'embedded', redec: REDEC_TERMS }, ownKey)
      ).body.configurationId;
      const { page } = await pageOf((await open({ configurationId }, ownKey)).body.url);
      expect(page.text).toContain(`<header class="bank"><img class="logo" src="data:image/svg+xml;base64,${svg}" alt=""><p>Banco Ejemplo</p></header>`);
      expect(page.headers['content-security-policy']).toContain("img-src data:;");
      const html = await recordsNothingAtAll(api, () => putPresentation({ displayName: 'Banco Ejemplo', logo: { mediaType: 'image/svg+xml', base64: Buffer.from('<html><body>x</body></html>').toString('base64') }, accentColor: '#0b3d91', terms: {} }, ownKey));
      expectValidationError(html, [{ field: 'logo.base64', reason: 'content_does_not_match_media_type' }]);
    });
  });
});
