import { cookiesSet } from './consent-page';
import { totpCode } from '@ledger/console';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import type { ApiApp } from './api-app';

/**
 * The console's forms and pages as a browser sends and reads them
 * (docs/console.md), for suites that go through the console without a
 * browser: its posts carry the service's own origin, as a page of it does.
 */

export const NEW_PASSWORD = 'a passphrase of my own';

export interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | string[]>;
}

/** The value of a hidden field of the page's first form with it. */
export function hidden(page: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(page);
  if (!match) throw new Error(`no hidden ${name} in the page`);
  return match[1];
}

/** The attributes of the cookie set under `name`, as the browser reads them. */
export function cookieLine(answer: Answer, name: string): string {
  const lines = answer.headers['set-cookie'];
  const line = (Array.isArray(lines) ? lines : [lines ?? '']).find((candidate) => candidate.startsWith(`${name}=`));
  if (!line) throw new Error(`no cookie ${name} set`);
  return line;
}

/** Forms and pages as a browser sends and reads them, against one app. */
export function consoleBrowser(api: ApiApp) {
  const origin = new URL(api.app.get<LedgerConfig>(LEDGER_CONFIG).publicUrl).origin;
  const FROM_CONSOLE = { origin, 'sec-fetch-site': 'same-origin' };
  const post = (path: string, form: Record<string, string>, cookie: string[] = [], headers: Record<string, string> = FROM_CONSOLE) =>
    api.http.post(path).set(headers).set('Cookie', cookie).type('form').send(form) as unknown as Promise<Answer>;
  const get = (path: string, cookie: string[] = [], language = 'es-CL,es;q=0.9') =>
    api.http.get(path).set('Cookie', cookie).set('accept-language', language) as unknown as Promise<Answer>;

  /** Email and password: the step cookie and where the sign-in goes next. */
  async function passwordStep(email: string, password: string) {
    const answer = await post('/console/sign-in', { email, password });
    expect(answer.status).toBe(303);
    return { step: cookiesSet(answer.headers), next: answer.headers.location as string, answer };
  }

  /** A whole first sign-in of a user the operator created: their password, the person's own, the app enrolled. The session's cookie and the app's secret. */
  async function firstSignIn(email: string, initialPassword: string) {
    const { step, next } = await passwordStep(email, initialPassword);
    expect(next).toBe('/console/sign-in/new-password');
    const form = await get(next, step);
    expect((await post(next, { csrf: hidden(form.text, 'csrf'), newPassword: NEW_PASSWORD }, step)).headers.location).toBe('/console/sign-in/code');
    const enrol = await get('/console/sign-in/code', step);
    const secret = /<dd class="secret">([A-Z2-7 ]+)<\/dd>/.exec(enrol.text)![1].replace(/ /g, '');
    const signedIn = await post('/console/sign-in/code', { csrf: hidden(enrol.text, 'csrf'), code: totpCode(secret, Date.now()) }, step);
    expect([signedIn.status, signedIn.headers.location]).toEqual([303, '/console']);
    return { secret, session: cookiesSet(signedIn.headers).filter((cookie) => cookie.startsWith('__Host-console-session=')), signedIn };
  }

  return { post, get, passwordStep, firstSignIn };
}

