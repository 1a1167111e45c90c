import { randomUUID } from 'node:crypto';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Frame, Page, Response } from 'playwright-core';
import { CONSENT_PAGE_COOKIE, embedStreams, verifyResultQuery } from '@ledger/embed';
import { ListeningApiApp, startListeningApiApp } from './support/api-app';
import { artifactPath, launchBrowser, seriousAccessibilityViolations } from './support/browser';
import { TestEnvironment, testEnvironment } from './support/environment';
import { TEST_PRESENTATION, redecConfiguration, rutOf } from './support/redec-fixtures';

// Embedded capture as the data subject lives it: a real Chromium opens the
// service's consent page (directly and inside an integrator's iframe),
// decides with mouse and keyboard, and comes back to the integrator's site.
// The service listens on a real port of 127.0.0.1; the integrator sites are
// plain node:http servers reached as `localhost`, another site to the
// browser, so a frame of the page is a third-party context as on the web
// (127.0.0.1 on another port would be the same site). Both are secure
// contexts to Chromium, so the page's Secure cookie is kept over http.

/** An integrator's web site: a page framing the consent page, and the page the browser returns to. */
interface IntegratorSite {
  origin: string;
  /** The request targets (`/return?...`, raw as the browser sent them) of every visit to /return. */
  returns: string[];
  close(): Promise<void>;
}

async function startIntegratorSite(): Promise<IntegratorSite> {
  const returns: string[] = [];
  const server: Server = createServer((request, response) => {
    const target = request.url ?? '/';
    const { pathname, searchParams } = new URL(target, 'http://integrator.invalid');
    if (pathname === '/frame') {
      const src = escapeAttribute(searchParams.get('src') ?? '');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="es-CL"><head><meta charset="utf-8"><title>Banco Ejemplo</title></head>` +
          `<body><h1>Banco Ejemplo</h1><iframe id="consent" title="Consentimiento" src="${src}" width="640" height="900"></iframe></body></html>`,
      );
      return;
    }
    if (pathname === '/return') {
      returns.push(target);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="es-CL"><head><meta charset="utf-8"><title>Banco Ejemplo</title></head><body><h1>De vuelta en Banco Ejemplo</h1></body></html>');
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    returns,
    close: () =>
      new Promise<void>((resolve) => {
        // Chromium keeps connections alive; without this close() waits for them to time out.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

const REDEC_TITLE = 'Consulta al Registro de Deuda Consolidada';
const REDEC_TEXT = 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada.';
const GENERAL_TITLE = 'Términos y condiciones de la cuenta digital';
const GENERAL_TEXT = 'Acepto los términos y condiciones de la cuenta digital de Banco Ejemplo.';

/** What the browser reads where the form was: the outcome pages of libs/embed/src/page/consent-page.ts. */
const ALREADY_USED_TITLE = 'Este enlace ya fue usado';

describe('embedded capture in a real browser: the consent page, its decision and the way back to the integrator', () => {
  let environment: TestEnvironment;
  let api: ListeningApiApp;
  let browser: Browser;
  let publicUrl: string;
  let tenantId: string;
  let key: string;
  /** On the configurations' allowed origins. */
  let integrator: IntegratorSite;
  /** Not on them: it may not frame the page. */
  let stranger: IntegratorSite;
  let redecEmbedded: { configurationId: string; templateKey: string };
  let generalEmbedded: { configurationId: string; templateKey: string };
  const contexts: BrowserContext[] = [];

  let nextRutBody = 23_000_000;
  const verifiedRut = () => ({
    system: 'cl-sii',
    type: 'rut',
    value: rutOf((nextRutBody += 7919)),
    verification: { method: 'clave_unica', sourceReference: `auth-${randomUUID()}`, verifiedAt: Date.now() - 60_000 },
  });
  const auth = () => ({ Authorization: `Bearer ${key}` });
  const get = (path: string) => api.http.get(path).set(auth());

  async function publish(body: Record<string, unknown>): Promise<{ configurationId: string; templateKey: string }> {
    const templateKey = `embedded-${randomUUID()}`;
    const published = await api.http.post('/v1/configurations').set(auth()).send({ ...body, templateKey });
    expect(published.status).toBe(201);
    return { configurationId: published.body.configurationId, templateKey };
  }

  async function openSession(configuration: string | string[], options: { returnUrl?: string; dynamicReference?: string } = {}) {
    const offered = typeof configuration === 'string' ? { configurationId: configuration } : { configurationIds: configuration };
    const opened = await api.http
      .post('/v1/embed/sessions')
      .set(auth())
      .send({ ...offered, userReference: `cliente-${randomUUID()}`, identifiers: [verifiedRut()], ...options });
    expect(opened.status).toBe(201);
    expect(opened.body.url).toMatch(new RegExp(`^${publicUrl}/embed/pages/[A-Za-z0-9_-]+\\?token=`));
    expect(opened.body.url).not.toContain(tenantId);
    return opened.body as { sessionId: string; customerId: string; url: string; expiresAt: number; customerCreated: boolean; resultSecret: string };
  }

  /** The page's own address, where the browser is sent once the URL's token is exchanged for the cookie. */
  const pageUrl = (session: { url: string }) => `${publicUrl}${new URL(session.url).pathname}`;

  async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const context = await browser.newContext(options);
    // Well under jest's 30 s, so a page that never comes is reported as such, not as a test timeout.
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  }

  const button = (scope: Page | Frame, name: 'Acepto' | 'No acepto') => scope.getByRole('button', { name, exact: true });
  const heading = (scope: Page | Frame) => scope.getByRole('heading', { level: 1 });
  const sessionStatus = async (sessionId: string) => {
    const status = await get(`/v1/embed/sessions/${sessionId}`);
    expect(status.status).toBe(200);
    return status.body;
  };

  /** Does `act` (a click, a key) and answers the service's response to the form post it makes: a redirect is not followed here. */
  async function decisionResponse(scope: Page | Frame, act: () => Promise<void>): Promise<Response> {
    const page = 'parentFrame' in scope ? scope.page() : scope;
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/decision')), act()]);
    return response;
  }

  /** Presses Tab until `name` has the focus; the number of presses it took, or null if it never did. */
  async function tabTo(page: Page, name: string, maxPresses: number): Promise<number | null> {
    for (let presses = 1; presses <= maxPresses; presses++) {
      await page.keyboard.press('Tab');
      const focused = page.locator('button:focus');
      if ((await focused.count()) === 1 && (await focused.textContent()) === name) return presses;
    }
    return null;
  }

  beforeAll(async () => {
    environment = testEnvironment();
    // The certificate worker runs elsewhere: the reads below compare one consent, unchanged between them.
    api = await startListeningApiApp(environment, { LEDGER_WORKERS: 'external' });
    publicUrl = api.publicUrl;
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    [integrator, stranger] = await Promise.all([startIntegratorSite(), startIntegratorSite()]);
    const embed = { allowedOrigins: [integrator.origin] };
    redecEmbedded = await publish({ ...redecConfiguration(), captureTiming: 'embedded', embed });
    generalEmbedded = await publish({ title: GENERAL_TITLE, text: GENERAL_TEXT, channel: 'digital', captureTiming: 'embedded', embed });
    browser = await launchBrowser();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([integrator?.close(), stranger?.close()]);
    await api?.close();
    await environment?.dispose();
  });

  it('accepts a REDEC consent on the page, returns to the integrator with a signed result and records the grant at the receipt', async () => {
    // A reference with a space, a slash and an ñ: the signature must survive the browser carrying the query.
    const dynamicReference = `solicitud 42/ñ-${randomUUID().slice(0, 8)}`;
    const session = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return`, dynamicReference });
    const page = await newPage();

    const response = await page.goto(session.url);
    expect(response?.status()).toBe(200);
    // On the way the URL's token was exchanged (303) for the page's cookie: the address bar no longer holds it.
    expect(response?.request().redirectedFrom()?.url()).toBe(session.url);
    expect(page.url()).toBe(pageUrl(session));
    expect(await page.context().cookies()).toEqual([
      expect.objectContaining({ name: CONSENT_PAGE_COOKIE, path: new URL(session.url).pathname, httpOnly: true, secure: true, sameSite: 'None' }),
    ]);
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain(`frame-ancestors ${integrator.origin}`);
    expect(policy).toContain(`form-action 'self' ${integrator.origin}`);
    expect(await heading(page).isVisible()).toBe(true);
    expect(await heading(page).textContent()).toBe(REDEC_TITLE);
    expect(await page.title()).toBe(`${REDEC_TITLE} · ${TEST_PRESENTATION.displayName}`);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    expect(main).toContain(REDEC_TEXT);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Para qué se usarán sus datos', 'Objetivos', 'Qué datos se consultarán', 'Quién podrá consultarlos']);
    expect(main).toContain('Quién podrá consultarlos Banco Ejemplo');

    await page.screenshot({ path: artifactPath('embedded-consent-page.png'), fullPage: true });

    // Accessibility basics through the DOM and the accessibility tree.
    expect(await page.locator('html').getAttribute('lang')).toBe('es-CL');
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    expect(await page.getByRole('group', { name: '¿Acepta otorgar este consentimiento?' }).count()).toBe(1);
    const buttons = page.getByRole('button');
    expect(await buttons.count()).toBe(2);
    expect(await button(page, 'Acepto').count()).toBe(1);
    expect(await button(page, 'No acepto').count()).toBe(1);
    // Only the two decisions take the focus: the hidden fields carry the token, not the keyboard.
    expect(await tabTo(page, 'Acepto', 3)).toBe(1);
    expect(await page.locator('button:focus-visible').textContent()).toBe('Acepto');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    expect(await tabTo(page, 'No acepto', 1)).toBe(1);

    const decided = await decisionResponse(page, () => button(page, 'Acepto').click());
    expect(decided.status()).toBe(303);
    await page.waitForURL((url) => url.origin === integrator.origin && url.pathname === '/return');
    expect(await heading(page).textContent()).toBe('De vuelta en Banco Ejemplo');
    expect(integrator.returns).toHaveLength(1);
    const query = integrator.returns[0].slice('/return?'.length);
    const result = new URLSearchParams(query);
    expect(result.get('embed_session_id')).toBe(session.sessionId);
    expect(result.get('status')).toBe('accepted');
    expect(result.get('reference')).toBe(dynamicReference);
    expect(verifyResultQuery(session.resultSecret, query)).toBe(true);
    expect(verifyResultQuery(session.resultSecret, query.replace('status=accepted', 'status=declined'))).toBe(false);

    const status = await sessionStatus(session.sessionId);
    expect(status).toMatchObject({ sessionId: session.sessionId, customerId: session.customerId, status: 'accepted', dynamicReference });
    expect(status.consent).toEqual({ kind: 'redec', consentId: expect.any(String), internalConsentCode: expect.stringMatching(/^[0-9A-Z]{20}$/) });
    expect(status.decidedAt).toBeGreaterThanOrEqual(status.openedAt);
    expect(result.get('timestamp')).toBe(String(Math.floor(status.decidedAt / 1000)));

    const consent = await get(`/v1/redec/consents/${status.consent.consentId}`);
    expect(consent.status).toBe(200);
    expect(consent.body).toMatchObject({
      redecConsentId: status.consent.consentId,
      internalConsentCode: status.consent.internalConsentCode,
      customerId: session.customerId,
      status: 'granted',
      channel: 'digital',
      captureTiming: 'embedded',
      grantedAt: status.decidedAt,
    });

    const compliance = await get(`/v1/customers/${session.customerId}/consent-compliance`).query({ templateKey: redecEmbedded.templateKey });
    expect(compliance.status).toBe(200);
    expect(compliance.body).toEqual({
      templateKey: redecEmbedded.templateKey,
      status: 'complies',
      acceptedVersion: 1,
      evaluatedVersion: 1,
      pendingRequirements: [],
      pendingVersionChanges: [],
    });

    const consents = await get(`/v1/customers/${session.customerId}/consents`);
    expect(consents.status).toBe(200);
    expect(consents.body.consents).toEqual([{ ...consent.body, kind: 'redec', templateKey: redecEmbedded.templateKey, configurationVersion: 1 }]);
  });

  it('lays the page out for a 360px phone: no sideways scrolling, the two decisions stacked, full width and touch-sized', async () => {
    const session = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return` });
    const page = await newPage({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    expect((await page.goto(session.url))?.status()).toBe(200);
    await page.screenshot({ path: artifactPath('embedded-consent-page-mobile.png'), fullPage: true });

    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    const accept = (await button(page, 'Acepto').boundingBox())!;
    const decline = (await button(page, 'No acepto').boundingBox())!;
    expect(decline.y).toBeGreaterThanOrEqual(accept.y + accept.height);
    expect(decline.width).toBe(accept.width);
    expect(accept.width).toBeGreaterThan(250);
    expect(accept.x + accept.width).toBeLessThanOrEqual(360);
    expect(accept.height).toBeGreaterThanOrEqual(44);
    expect(decline.height).toBeGreaterThanOrEqual(44);
  });

  it('declines a general consent by keyboard without a return URL: the page tells the outcome and nothing is granted', async () => {
    const session = await openSession(generalEmbedded.configurationId);
    const page = await newPage();
    const shown = await page.goto(session.url);
    expect(shown?.status()).toBe(200);
    // Without a return URL the form posts only to the page itself.
    expect(shown?.headers()['content-security-policy']).toContain("form-action 'self';");
    expect(await heading(page).textContent()).toBe(GENERAL_TITLE);
    expect(await page.locator('main').innerText()).toContain(GENERAL_TEXT);
    // A general consent has no REDEC terms to show.
    expect(await page.getByRole('heading', { name: 'Quién podrá consultarlos' }).count()).toBe(0);

    expect(await tabTo(page, 'No acepto', 4)).not.toBeNull();
    const decided = await decisionResponse(page, () => page.keyboard.press('Enter'));
    expect(decided.request().postDataJSON()).toMatchObject({ decision: 'decline' });
    expect(decided.status()).toBe(200);
    await page.waitForLoadState('load');
    expect(await heading(page).textContent()).toBe('Consentimiento no otorgado');
    expect(await page.locator('main').innerText()).toContain('Registramos que usted no aceptó.');

    const status = await sessionStatus(session.sessionId);
    expect(status).toMatchObject({ status: 'declined', consent: null, decidedAt: expect.any(Number) });
    const compliance = await get(`/v1/customers/${session.customerId}/consent-compliance`).query({ templateKey: generalEmbedded.templateKey });
    expect(compliance.status).toBe(200);
    expect(compliance.body).toEqual({
      templateKey: generalEmbedded.templateKey,
      status: 'non_compliant',
      acceptedVersion: null,
      evaluatedVersion: 1,
      pendingRequirements: [{ code: 'acceptance_required', version: 1 }],
      pendingVersionChanges: [],
    });
    const consents = await get(`/v1/customers/${session.customerId}/consents`);
    expect(consents.status).toBe(200);
    expect(consents.body).toEqual({ consents: [] });
  });

  it('refuses a second decision: the form replayed from another tab, the way back and the link again all show the link as used', async () => {
    const session = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return`, dynamicReference: 'replay-1' });
    const firstTab = await newPage();
    const secondTab = await firstTab.context().newPage();
    expect((await firstTab.goto(session.url))?.status()).toBe(200);
    expect((await secondTab.goto(session.url))?.status()).toBe(200);
    const returnsBefore = integrator.returns.length;

    expect((await decisionResponse(firstTab, () => button(firstTab, 'Acepto').click())).status()).toBe(303);
    await firstTab.waitForURL((url) => url.origin === integrator.origin && url.pathname === '/return');
    const accepted = await sessionStatus(session.sessionId);
    expect(accepted.status).toBe('accepted');

    // The same form, still open in the other tab, now declines.
    const replayed = await decisionResponse(secondTab, () => button(secondTab, 'No acepto').click());
    expect(replayed.status()).toBe(409);
    await secondTab.waitForLoadState('load');
    expect(await heading(secondTab).textContent()).toBe(ALREADY_USED_TITLE);
    expect(await button(secondTab, 'Acepto').count()).toBe(0);

    // Back from the integrator's page: the page is not kept (no-store), so the browser asks again.
    const back = await firstTab.goBack();
    expect(back?.status()).toBe(409);
    expect(await heading(firstTab).textContent()).toBe(ALREADY_USED_TITLE);
    expect(await button(firstTab, 'Acepto').count()).toBe(0);

    const again = await secondTab.goto(session.url);
    expect(again?.status()).toBe(409);
    expect(await heading(secondTab).textContent()).toBe(ALREADY_USED_TITLE);

    expect(await sessionStatus(session.sessionId)).toEqual(accepted);
    const facts = await api.store.readStream(embedStreams.session(tenantId, session.sessionId));
    expect(facts.map((fact) => fact.type)).toEqual(['EmbedSessionOpened', 'EmbedSessionDecided']);
    const consents = await get(`/v1/customers/${session.customerId}/consents`);
    expect(consents.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([accepted.consent.consentId]);
    expect(integrator.returns.length).toBe(returnsBefore + 1);
  });

  it("lets the configuration's allowed origin frame the page and decide in it, and no other site", async () => {
    // Allowed: the page loads inside the integrator's iframe and the decision comes back into the frame.
    const allowedSession = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return`, dynamicReference: 'framed-1' });
    const framing = await newPage();
    await framing.goto(`${integrator.origin}/frame?src=${encodeURIComponent(allowedSession.url)}`);
    const allowedFrame = (await framing.locator('iframe#consent').elementHandle())!;
    const consentFrame = (await allowedFrame.contentFrame())!;
    await button(consentFrame, 'Acepto').waitFor({ state: 'visible' });
    // The token was exchanged inside the frame, for a cookie partitioned to the integrator's site (SameSite=None; Partitioned).
    expect(consentFrame.url()).toBe(pageUrl(allowedSession));
    expect(await framing.context().cookies()).toEqual([
      expect.objectContaining({ name: CONSENT_PAGE_COOKIE, path: new URL(allowedSession.url).pathname, sameSite: 'None', partitionKey: 'http://localhost' }),
    ]);
    // So the same browser, on the service's own site, holds no cookie for the page.
    const topLevel = await framing.context().newPage();
    expect((await topLevel.goto(pageUrl(allowedSession)))?.status()).toBe(403);
    expect(await heading(topLevel).textContent()).toBe('Abra el enlace que recibió');
    await topLevel.close();
    expect(await heading(consentFrame).textContent()).toBe(REDEC_TITLE);
    expect((await decisionResponse(consentFrame, () => button(consentFrame, 'Acepto').click())).status()).toBe(303);
    await consentFrame.waitForURL((url) => url.origin === integrator.origin && url.pathname === '/return');
    const framedReturn = new URL(consentFrame.url());
    expect(framedReturn.searchParams.get('status')).toBe('accepted');
    expect(framedReturn.searchParams.get('reference')).toBe('framed-1');
    expect(verifyResultQuery(allowedSession.resultSecret, framedReturn.search.slice(1))).toBe(true);
    expect((await sessionStatus(allowedSession.sessionId)).status).toBe('accepted');

    // Not allowed: the service answers, and Chromium refuses to show the answer inside the other site's frame.
    const strangerSession = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return` });
    const attacked = await newPage();
    const consentResponse = attacked.waitForResponse((r) => r.url() === pageUrl(strangerSession));
    await attacked.goto(`${stranger.origin}/frame?src=${encodeURIComponent(strangerSession.url)}`);
    const served = await consentResponse;
    expect(served.status()).toBe(200);
    expect(served.headers()['content-security-policy']).toContain(`frame-ancestors ${integrator.origin};`);
    await attacked.waitForLoadState('load');
    const blockedFrame = (await (await attacked.locator('iframe#consent').elementHandle())!.contentFrame())!;
    expect(blockedFrame.url()).not.toBe(strangerSession.url);
    expect(blockedFrame.url()).toMatch(/^chrome-error:\/\//);
    expect(await blockedFrame.locator('button').count()).toBe(0);
    expect((await sessionStatus(strangerSession.sessionId)).status).toBe('open');
  });

  it('explains a refused decision inside the frame too: the link used in another tab meanwhile', async () => {
    const session = await openSession(redecEmbedded.configurationId, { returnUrl: `${integrator.origin}/return` });
    const framing = await newPage();
    await framing.goto(`${integrator.origin}/frame?src=${encodeURIComponent(session.url)}`);
    const consentFrame = (await (await framing.locator('iframe#consent').elementHandle())!.contentFrame())!;
    await button(consentFrame, 'No acepto').waitFor({ state: 'visible' });

    // The same link, opened and accepted in a tab of its own before the framed page is answered.
    const otherTab = await framing.context().newPage();
    await otherTab.goto(session.url);
    expect((await decisionResponse(otherTab, () => button(otherTab, 'Acepto').click())).status()).toBe(303);

    const refused = await decisionResponse(consentFrame, () => button(consentFrame, 'No acepto').click());
    expect(refused.status()).toBe(409);
    // The page that says so must be allowed into the integrator's frame, or the person sees a browser error instead.
    expect(refused.headers()['content-security-policy']).toContain(`frame-ancestors ${integrator.origin};`);
    await consentFrame.waitForLoadState('load');
    expect(consentFrame.url()).not.toMatch(/^chrome-error:/);
    expect(await heading(consentFrame).textContent()).toBe(ALREADY_USED_TITLE);
    expect((await sessionStatus(session.sessionId)).status).toBe('accepted');
  });

  it('decides several consents on one page, each on its own, and returns to the integrator with each named', async () => {
    const session = await openSession([redecEmbedded.configurationId, generalEmbedded.configurationId], { returnUrl: `${integrator.origin}/return`, dynamicReference: 'several-1' });
    const page = await newPage();
    const response = await page.goto(session.url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain(`frame-ancestors ${integrator.origin}`);
    expect(await heading(page).textContent()).toBe('Consentimientos solicitados');
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([REDEC_TITLE, GENERAL_TITLE]);
    // The REDEC terms belong to their consent's section.
    expect(await page.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Para qué se usarán sus datos', 'Objetivos', 'Qué datos se consultarán', 'Quién podrá consultarlos']);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    expect(main).toContain(REDEC_TEXT);
    expect(main).toContain(GENERAL_TEXT);

    const choice = (title: string, name: 'Acepto' | 'No acepto') => page.getByRole('group', { name: `¿Acepta otorgar «${title}»?` }).getByRole('radio', { name, exact: true });
    for (const title of [REDEC_TITLE, GENERAL_TITLE]) {
      for (const name of ['Acepto', 'No acepto'] as const) expect(await choice(title, name).isChecked()).toBe(false);
    }
    const send = page.getByRole('button', { name: 'Enviar mis respuestas' });
    expect(await page.getByRole('button').count()).toBe(1);

    // Nothing chosen yet: the browser keeps the form, and nothing reaches the service.
    await choice(REDEC_TITLE, 'Acepto').click();
    await send.click();
    expect(page.url()).toBe(pageUrl(session));
    expect(await page.evaluate('document.querySelector("form").checkValidity()')).toBe(false);
    expect((await sessionStatus(session.sessionId)).status).toBe('open');

    // The second choice by keyboard: Tab into its group, then an arrow key chooses within it.
    await choice(GENERAL_TITLE, 'Acepto').focus();
    await page.keyboard.press('ArrowRight');
    expect(await choice(GENERAL_TITLE, 'No acepto').isChecked()).toBe(true);
    await page.screenshot({ path: artifactPath('embedded-consent-page-several.png'), fullPage: true });

    const decided = await decisionResponse(page, () => send.click());
    expect(decided.request().postDataJSON()).toMatchObject({ 'decision-0': 'accept', 'decision-1': 'decline' });
    expect(decided.status()).toBe(303);
    await page.waitForURL((url) => url.origin === integrator.origin && url.pathname === '/return');
    const query = integrator.returns[integrator.returns.length - 1].slice('/return?'.length);
    const result = new URLSearchParams(query);
    expect([result.get('status'), result.get('accepted'), result.get('declined'), result.get('reference')]).toEqual([
      'partially_accepted',
      redecEmbedded.configurationId,
      generalEmbedded.configurationId,
      'several-1',
    ]);
    expect(verifyResultQuery(session.resultSecret, query)).toBe(true);

    const status = await sessionStatus(session.sessionId);
    expect(status).toMatchObject({ status: 'partially_accepted', decisionId: expect.any(String) });
    expect(status.items.map((item: { decision: string }) => item.decision)).toEqual(['accepted', 'declined']);
    const consents = await get(`/v1/customers/${session.customerId}/consents`);
    expect(consents.body.consents.map((c: { kind: string; redecConsentId: string }) => [c.kind, c.redecConsentId])).toEqual([['redec', status.items[0].consent.consentId]]);
    expect((await get(`/v1/consent-decisions/${status.decisionId}`)).body).toMatchObject({ embedSessionId: session.sessionId, items: [{ decision: 'accepted' }, { decision: 'declined' }] });
  });

  it('lays several consents out for a 360px phone: no sideways scrolling, every choice touch-sized', async () => {
    const session = await openSession([redecEmbedded.configurationId, generalEmbedded.configurationId]);
    const page = await newPage({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    expect((await page.goto(session.url))?.status()).toBe(200);
    await page.screenshot({ path: artifactPath('embedded-consent-page-several-mobile.png'), fullPage: true });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    for (const label of await page.locator('.choice label').all()) {
      const box = (await label.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.x + box.width).toBeLessThanOrEqual(360);
    }
    const send = (await page.getByRole('button', { name: 'Enviar mis respuestas' }).boundingBox())!;
    expect(send.height).toBeGreaterThanOrEqual(44);
    expect(send.width).toBeGreaterThan(250);
  });

  it.each([
    ['one consent', 390],
    ['one consent', 1280],
    ['several consents', 390],
    ['several consents', 1280],
  ])('shows %s at %i px with the bank named, every code in words, and no serious or critical accessibility violation', async (offer, width) => {
    const session = await openSession(offer === 'one consent' ? redecEmbedded.configurationId : [redecEmbedded.configurationId, generalEmbedded.configurationId]);
    const page = await newPage({ viewport: { width, height: 900 } });
    expect((await page.goto(session.url))?.status()).toBe(200);
    expect(await page.getByRole('banner').innerText()).toBe(TEST_PRESENTATION.displayName);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    expect(main).toContain(`${TEST_PRESENTATION.terms.finality['2']} (código 2)`);
    expect(main).toContain(`${TEST_PRESENTATION.terms.objective['02']} (código 02)`);
    expect(main).toContain('Registro de Deuda Consolidada (REDEC) de la Comisión para el Mercado Financiero (código redec.consolidated_debt_record)');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: artifactPath(`consent-page-${offer.replace(' ', '-')}-${width}.png`), fullPage: true });
  });

  it('shows the pages that follow, the outcome, a link already used and a link without its token, with no serious or critical accessibility violation', async () => {
    const session = await openSession(redecEmbedded.configurationId);
    const page = await newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(session.url);
    await decisionResponse(page, () => button(page, 'Acepto').click());
    await page.waitForLoadState();
    const seen: Array<[string | null, unknown]> = [[await heading(page).textContent(), await seriousAccessibilityViolations(page)]];
    await page.goto(session.url);
    seen.push([await heading(page).textContent(), await seriousAccessibilityViolations(page)]);
    const stranger = await newPage({ viewport: { width: 390, height: 844 } });
    await stranger.goto(pageUrl(session));
    seen.push([await heading(stranger).textContent(), await seriousAccessibilityViolations(stranger)]);
    expect(seen).toEqual([
      ['Consentimiento otorgado', []],
      [ALREADY_USED_TITLE, []],
      ['Abra el enlace que recibió', []],
    ]);
  });
});
