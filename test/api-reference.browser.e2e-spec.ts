import type { Browser, Page } from 'playwright-core';
import { ListeningApiApp, startListeningApiApp } from './support/api-app';
import { artifactPath, launchBrowser } from './support/browser';
import { TestEnvironment, testEnvironment } from './support/environment';

// The API reference as an integrator meets it: a real Chromium opens /docs on
// the service's own port, finds every tag of the document, authorizes with an
// API key and sends a request from the page ("Try it out").

type Document = { tags: Array<{ name: string }> };

describe('the API reference page at /docs in a real browser', () => {
  let environment: TestEnvironment;
  let api: ListeningApiApp;
  let browser: Browser;
  let publicUrl: string;

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startListeningApiApp(environment, { LEDGER_WORKERS: 'external' });
    publicUrl = api.publicUrl;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api.close();
    await environment.dispose();
  });

  /** A page that records every URL it asks for and every Content-Security-Policy violation it reports. */
  async function openReference(): Promise<{ page: Page; requested: string[]; violations: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const requested: string[] = [];
    const violations: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const answer = await page.goto(`${publicUrl}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toMatch(/default-src 'none'.*script-src 'self'/);
    await page.locator('.opblock-tag').first().waitFor();
    return { page, requested, violations };
  }

  it('loads from the service alone, with no policy violation, and lists every tag of the document', async () => {
    const { page, requested, violations } = await openReference();
    const document = (await api.http.get('/openapi.json')).body as Document;
    const tags = await page.locator('.opblock-tag').evaluateAll((headings) => headings.map((h) => h.getAttribute('data-tag')));
    expect(tags).toEqual(document.tags.map((tag) => tag.name));
    await page.screenshot({ path: artifactPath('api-reference.png'), fullPage: false });
    expect(requested.filter((url) => !url.startsWith(`${publicUrl}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('sends a request with the API key typed into Authorize ("Try it out")', async () => {
    const { apiKey } = await api.tenantKey(['consent:write']);
    const { page, violations } = await openReference();

    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.auth-container input').fill(apiKey);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-customers-resolveCustomer');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    // The body starts as the example taken from the README's walk-through.
    expect(JSON.parse(await operation.locator('textarea.body-param__text').inputValue())).toMatchObject({ userReference: 'cliente-42' });
    const [sent, answered] = await Promise.all([
      page.waitForRequest((request) => request.url() === `${publicUrl}/v1/customers/resolve`),
      page.waitForResponse((response) => response.url() === `${publicUrl}/v1/customers/resolve`),
      operation.locator('button.execute').click(),
    ]);
    expect(sent.headers().authorization).toBe(`Bearer ${apiKey}`);
    expect(answered.status()).toBe(201);
    expect(await answered.json()).toMatchObject({ created: true, customerId: expect.any(String) });
    await expect(operation.locator('.live-responses-table tbody .response-col_status').first().textContent()).resolves.toContain('201');
    expect(violations).toEqual([]);
  });
});
