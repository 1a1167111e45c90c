import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createConsoleUser, totpCode } from '@ledger/console';
import { santiagoTime } from '@ledger/embed';
import { ListeningApiApp, startListeningApiApp } from './support/api-app';
import { artifactPath, launchBrowser, seriousAccessibilityViolations } from './support/browser';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { redecConsents } from './support/redec-consents';

// The console as a compliance officer lives it (docs/console.md): a real
// Chromium signs in for the first time (the operator's password, one of
// their own, the authenticator app enrolled), finds a consent by its code
// and reads its history, and clears an overdue notice by recording its
// evidence, at a phone's width and a desktop's, with an
// accessibility check of every page it reaches and a screenshot of each.

const WIDTHS = [
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
] as const;
const NEW_PASSWORD = 'una frase que solo yo conozco';

describe('the console in a real browser: first sign-in, search, a consent and its history', () => {
  let environment: TestEnvironment;
  let api: ListeningApiApp;
  let browser: Browser;
  let tenantId: string;
  let apiKey: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    environment = testEnvironment(EMBEDDED_STORE);
    api = await startListeningApiApp(environment, { LEDGER_WORKERS: 'external' });
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await environment?.dispose();
  });

  async function newPage(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: 'es-CL' });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  }

  /** The page as it is: nothing wider than the screen at 320 px, no serious accessibility violation, and its screenshot kept. */
  async function check(page: Page, name: string, viewport: { width: number; height: number }): Promise<void> {
    await page.setViewportSize({ width: 320, height: viewport.height });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    await page.setViewportSize(viewport);
    await page.screenshot({ path: artifactPath(`console-${name}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  }

  /** A first sign-in, as the person types it: the operator's password, one of their own, the app enrolled with its first code. */
  async function firstSignIn(page: Page, role: string, name: string, viewport: { width: number; height: number }, checked: boolean): Promise<string> {
    const email = `${role}-${name}@banco.example`;
    const { initialPassword } = await createConsoleUser(api.store, { tenantId, email, role }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
    await page.goto(`${api.publicUrl}/console`);
    expect(page.url()).toBe(`${api.publicUrl}/console/sign-in`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Iniciar sesión');
    if (checked) await check(page, `${name}-sign-in`, viewport);
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill(initialPassword);
    await page.getByRole('button', { name: 'Continuar' }).click();

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Elija su contraseña');
    if (checked) await check(page, `${name}-new-password`, viewport);
    await page.getByLabel('Nueva contraseña').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Continuar' }).click();

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Configure su aplicación de autenticación');
    if (checked) await check(page, `${name}-enrol`, viewport);
    const secret = (await page.locator('dd.secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Código de 6 dígitos').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Continuar' }).click();

    // Signed in: the session's cookie held and sent back by the browser itself.
    expect(page.url()).toBe(`${api.publicUrl}/console`);
    expect(await page.locator('main').innerText()).toContain(email);
    return email;
  }

  it.each(WIDTHS)('signs an auditor in for the first time, then finds a consent by its code and reads its history ($name)', async ({ name, viewport }) => {
    const consent = await redecConsents(api, apiKey).grant();
    const page = await newPage(viewport);
    await firstSignIn(page, 'auditor', name, viewport, true);
    await check(page, `${name}-home`, viewport);

    await page.getByLabel('Valor').fill(consent.internalConsentCode);
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.getByRole('link', { name: consent.internalConsentCode }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`Consentimiento ${consent.internalConsentCode}`);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Historia']);
    expect(await page.locator('tbody').innerText()).toContain('ConsentGranted');
    await check(page, `${name}-consent`, viewport);

    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    expect(page.url()).toBe(`${api.publicUrl}/console/sign-in`);
    await page.goto(`${api.publicUrl}/console`);
    expect(page.url()).toBe(`${api.publicUrl}/console/sign-in`);
  });

  it.each(WIDTHS)('clears an overdue notice by recording its evidence, as an operator, in the browser alone ($name)', async ({ name, viewport }) => {
    const owed = await redecConsents(api, apiKey).grant({ occurredAt: Date.now() - 6 * 24 * 60 * 60_000 });
    const page = await newPage(viewport);
    await firstSignIn(page, 'operator', name, viewport, false);

    await page.getByRole('navigation').getByRole('link', { name: 'Avisos atrasados' }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Avisos atrasados');
    await check(page, `${name}-overdue`, viewport);
    await page.getByRole('row', { name: new RegExp(owed.internalConsentCode) }).getByRole('link', { name: 'Registrar evidencia' }).click();

    expect(await page.getByRole('heading', { level: 2, name: 'Registrar evidencia de aviso' }).isVisible()).toBe(true);
    await check(page, `${name}-evidence`, viewport);
    await page.getByLabel('Canal (por ejemplo, email o sms)').fill('email');
    await page.getByLabel('Estado de la entrega').selectOption('delivered');
    const { date, time } = santiagoTime(Date.now() - 60_000);
    const [day, month, year] = date.split('-');
    await page.getByLabel('Enviado el (hora de Santiago)').fill(`${year}-${month}-${day}T${time}`);
    await page.getByLabel('Hash de la dirección del destinatario').fill('e'.repeat(64));
    await page.getByLabel('Sistema que lo envió').fill('notificador');
    await page.getByLabel('Referencia del aviso en ese sistema').fill(`aviso-${name}`);
    await page.getByLabel('SHA-256 del mensaje enviado').fill('f'.repeat(64));
    await page.getByRole('button', { name: 'Registrar' }).click();

    expect(await page.getByRole('status').innerText()).toBe('Evidencia de aviso registrada.');
    await page.getByRole('navigation').getByRole('link', { name: 'Avisos atrasados' }).click();
    expect(await page.locator('main').innerText()).not.toContain(owed.internalConsentCode);
  });
});
