import { randomUUID } from 'node:crypto';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ListeningApiApp, startListeningApiApp } from './support/api-app';
import { artifactPath, launchBrowser, seriousAccessibilityViolations } from './support/browser';
import { TestEnvironment, testEnvironment } from './support/environment';
import { generalConsents } from './support/general-consents';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { TEST_PRESENTATION, initialWindowAccess } from './support/redec-fixtures';

// The privacy center as the data subject lives it (docs/privacy-center.md):
// a real Chromium opens the link the bank hands out, reads their consents and
// the accesses under them, revokes one with the mouse and files a request
// with the keyboard alone, at a phone's width and a desktop's, with an
// accessibility check of every page it reaches. The bank's site is a plain
// node:http server on `localhost`, another site to the browser.

const MINUTE = 60_000;
const TITLE = 'Sus consentimientos y solicitudes';
const WIDTHS = [
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
] as const;

describe('the privacy center in a real browser: see, revoke, file a request', () => {
  let environment: TestEnvironment;
  let api: ListeningApiApp;
  let browser: Browser;
  let key: string;
  let bankSite: { origin: string; close(): Promise<void> };
  let consents: ReturnType<typeof redecConsents>;
  const contexts: BrowserContext[] = [];

  const auth = () => ({ Authorization: `Bearer ${key}` });
  const post = (path: string, body: object) => api.http.post(path).set(auth()).set('Idempotency-Key', randomUUID()).send(body);

  async function newPage(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: 'es-CL' });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  }

  /** A customer with what a center has to show: a consent with an access, its outcome and a notice; a general consent. */
  async function customerWithHistory(): Promise<{ consent: GrantedConsent; generalConsentId: string }> {
    const consent = await consents.grant({ occurredAt: Date.now() - 5 * MINUTE });
    const authorized = await post('/v1/redec/accesses/authorize', initialWindowAccess(consent.redecConsentId));
    expect(authorized.body.decision.status).toBe('authorized');
    expect((await post(`/v1/redec/accesses/${authorized.body.decision.redecAccessId}/confirm`, { outcome: { kind: 'accessed', accessedAt: Date.now() - 1_000 } })).status).toBe(200);
    const notice = await post(`/v1/redec/consents/${consent.redecConsentId}/notification-evidence`, {
      notificationReason: 'grant',
      notificationChannel: 'email',
      recipientHash: 'a'.repeat(64),
      status: 'delivered',
      sentAt: Date.now() - MINUTE,
      sourceSystem: 'notificador',
      sourceReference: `aviso-${randomUUID()}`,
      contentSha256: 'b'.repeat(64),
    });
    expect(notice.status).toBe(201);
    const general = await generalConsents(api, key).grant(consent.customerId);
    return { consent, generalConsentId: general.consentId };
  }

  async function openCenter(customerId: string): Promise<string> {
    const opened = await post('/v1/privacy-center/sessions', { customerId, returnUrl: `${bankSite.origin}/privacidad` });
    expect(opened.status).toBe(201);
    return opened.body.url as string;
  }

  /** Presses Tab until the focused element matches `selector`; the presses it took, or null. */
  async function tabTo(page: Page, selector: string, maxPresses: number): Promise<number | null> {
    for (let presses = 1; presses <= maxPresses; presses++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return presses;
    }
    return null;
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startListeningApiApp(environment, { LEDGER_WORKERS: 'external' });
    ({ apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
    consents = redecConsents(api, key);
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="es-CL"><head><meta charset="utf-8"><title>Banco Ejemplo</title></head><body><h1>Privacidad en Banco Ejemplo</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    bankSite = {
      origin: `http://localhost:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    };
    browser = await launchBrowser();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await bankSite?.close();
    await api?.close();
    await environment?.dispose();
  });

  it.each(WIDTHS)('shows the person, at a $name’s width, their consents in words, the accesses under them and the notices, with no serious accessibility violation', async ({ name, viewport }) => {
    const { consent } = await customerWithHistory();
    const page = await newPage(viewport);
    const url = await openCenter(consent.customerId);
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    // The token left the address bar on the way in.
    expect(page.url()).toBe(`${api.publicUrl}${new URL(url).pathname}`);
    expect(await page.title()).toBe(`${TITLE} · ${TEST_PRESENTATION.displayName}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('es-CL');
    expect(await page.getByRole('banner').innerText()).toContain(TEST_PRESENTATION.displayName);
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual([TITLE]);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Consultas a su deuda consolidada (REDEC)', 'Otros consentimientos', 'Sus solicitudes']);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    expect(main).toContain(`Para qué: ${TEST_PRESENTATION.terms.finality['2']} (código 2)`);
    expect(main).toContain(`${TEST_PRESENTATION.terms.objective['02']} (código 02)`);
    expect(main).toContain('Consulta autorizada: el banco consultó el registro.');
    expect(main).toContain('Aviso de que usted otorgó el consentimiento, por correo electrónico');
    expect(main).toContain('Términos del servicio');
    // Nothing internal where the person reads.
    for (const id of [consent.customerId, consent.redecConsentId, consent.internalConsentCode]) expect(main).not.toContain(id);
    // Nothing wider than the screen: read at 320 px too, the narrowest WCAG reflow asks for.
    await page.setViewportSize({ width: 320, height: viewport.height });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    await page.setViewportSize(viewport);
    await page.screenshot({ path: artifactPath(`privacy-center-${name}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it.each(WIDTHS)('revokes a consent with the mouse once its confirmation is ticked, and the page says so where a screen reader announces it ($name)', async ({ name, viewport }) => {
    const { consent } = await customerWithHistory();
    const page = await newPage(viewport);
    await page.goto(await openCenter(consent.customerId));
    const form = page.getByRole('group', { name: 'Revocar «Consulta al Registro de Deuda Consolidada»' });
    // Without the confirmation the browser does not send the form.
    await form.getByRole('button', { name: 'Revocar' }).click();
    expect(await form.getByRole('checkbox').evaluate((box) => (box as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect((await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth())).body.status).toBe('granted');

    await form.getByRole('checkbox', { name: 'Confirmo que quiero revocar este consentimiento' }).check();
    await Promise.all([page.waitForURL(/\?done=revoked$/), form.getByRole('button', { name: 'Revocar' }).click()]);
    expect(await page.getByRole('status').innerText()).toContain('Registramos la revocación.');
    expect((await page.locator('main').innerText()).replace(/\s+/g, ' ')).toContain('Estado: Revocado');
    expect(await page.getByRole('group', { name: 'Revocar «Consulta al Registro de Deuda Consolidada»' }).count()).toBe(0);
    expect((await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth())).body).toMatchObject({ status: 'revoked', revocation: { channel: 'digital' } });
    await page.screenshot({ path: artifactPath(`privacy-center-revoked-${name}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it.each(WIDTHS)('files a rights request with the keyboard alone and shows it with its deadline ($name)', async ({ name, viewport }) => {
    const { consent } = await customerWithHistory();
    const page = await newPage(viewport);
    await page.goto(await openCenter(consent.customerId));
    // From the top of the page, through the revocation forms, to the request's first choice.
    expect(await tabTo(page, 'input[name="kind"][value="access"]', 12)).not.toBeNull();
    await page.keyboard.press('Space');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    // Arrow keys move within the group; Tab leaves it for the description.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('description');
    await page.keyboard.type('Quiero saber qué datos míos tienen.');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Enviar solicitud');
    await Promise.all([page.waitForURL(/\?done=request_filed$/), page.keyboard.press('Enter')]);
    expect(await page.getByRole('status').innerText()).toContain('Recibimos su solicitud.');
    const requests = (await page.getByRole('region', { name: 'Sus solicitudes' }).innerText()).replace(/\s+/g, ' ');
    expect(requests).toMatch(/Acceso, presentada el \d{2}-\d{2}-\d{4}\. Estado: Recibida\. Plazo de respuesta: \d{2}-\d{2}-\d{4}\./);
    await page.screenshot({ path: artifactPath(`privacy-center-request-filed-${name}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('ends the session with the keyboard, and the page says so, with no serious accessibility violation', async () => {
    const { consent } = await customerWithHistory();
    const url = await openCenter(consent.customerId);
    const page = await newPage(WIDTHS[0].viewport);
    await page.goto(url);
    await page.getByRole('button', { name: 'Cerrar sesión' }).focus();
    await Promise.all([page.waitForLoadState(), page.keyboard.press('Enter')]);
    await page.waitForSelector('h1:text("Sesión cerrada")');
    expect(await page.context().cookies()).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect((await page.goto(url))?.status()).toBe(410);
  });

  it('asks for the bank’s link, naming no bank, when the page is opened without it, with no serious accessibility violation', async () => {
    const { consent } = await customerWithHistory();
    const url = await openCenter(consent.customerId);
    const page = await newPage(WIDTHS[0].viewport);
    const response = await page.goto(`${api.publicUrl}${new URL(url).pathname}`);
    expect(response?.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Entre desde el sitio de su banco');
    expect(await page.content()).not.toContain(TEST_PRESENTATION.displayName);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });
});
