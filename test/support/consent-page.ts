import { ApiApp } from './api-app';

/** The consent page as a browser holds it after opening the session's URL: the cookie it was given, the form's hidden fields and action. */
export interface OpenedConsentPage {
  /** The answer to the URL with its token: 303 to the page, with the cookie. */
  exchange: { status: number; headers: Record<string, string | string[]> };
  /** The answer to the page's own address, fetched with the cookie. */
  page: { status: number; headers: Record<string, string>; text: string };
  /** `name=value` as the browser sends it back; undefined when none was set. */
  cookie: string | undefined;
  hidden: Record<string, string>;
  action: string | undefined;
}

/** The `name=value` part of each Set-Cookie the answer carries. */
export function cookiesSet(headers: Record<string, string | string[]>): string[] {
  const setCookie = headers['set-cookie'] ?? [];
  return (Array.isArray(setCookie) ? setCookie : [setCookie]).map((line) => line.split(';')[0]);
}

/**
 * Opens a session's page URL as a browser does: the URL with its token, then
 * the redirect it answers with the cookie it sets. Path and query are used;
 * the host is the test app's.
 */
export async function openConsentPage(api: ApiApp, url: string): Promise<OpenedConsentPage> {
  const { pathname, search } = new URL(url);
  const exchange = await api.http.get(pathname + search);
  const [cookie] = cookiesSet(exchange.headers);
  const location = exchange.status === 303 ? exchange.headers.location : undefined;
  const page = location !== undefined ? await api.http.get(location).set(cookie ? { cookie } : {}) : exchange;
  const hidden = Object.fromEntries([...String(page.text).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
  return { exchange, page, cookie, hidden, action };
}
