import { createHash } from 'node:crypto';
import { renderConsentPage, renderOutcomePage } from './consent-page';
import { consentPageHeaders } from './page-security-headers';

const noOrigins = { frameAncestors: [], formActionOrigins: [] };

/** The policy as directive name -> its source list, failing on a repeated directive (browsers would ignore the second). */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const directive of policy.split(';')) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (map.has(name)) throw new Error(`directive ${name} repeated`);
    map.set(name, sources);
  }
  return map;
}
const csp = (options: Parameters<typeof consentPageHeaders>[0]) => directives(consentPageHeaders(options)['Content-Security-Policy']);

function inlinedStylesheet(page: string): string {
  const match = page.match(/<style>([\s\S]*?)<\/style>/);
  if (!match) throw new Error('no <style> in the page');
  return match[1];
}

describe('consentPageHeaders', () => {
  it('allows exactly the stylesheet the pages inline, by its sha256', () => {
    const item = { title: 't', text: 'x', redec: null };
    const bank = { displayName: 'Banco Ejemplo', logo: null, accentColor: null };
    const consentPage = renderConsentPage({ bank, items: [item], formAction: '/d', hiddenFields: {}, expiresAt: 0 });
    const severalPage = renderConsentPage({ bank, items: [item, { ...item, title: 'u' }], formAction: '/d', hiddenFields: {}, expiresAt: 0 });
    for (const page of [consentPage, severalPage, renderOutcomePage('expired')]) {
      const hash = createHash('sha256').update(inlinedStylesheet(page), 'utf8').digest('base64');
      expect(csp(noOrigins).get('style-src')).toEqual([`'sha256-${hash}'`]);
    }
  });

  it("allows the bank's colour's stylesheet beside the page's, and no other", () => {
    const page = renderConsentPage({ bank: { displayName: 'Banco Ejemplo', logo: null, accentColor: '#8a1538' }, items: [{ title: 't', text: 'x', redec: null }], formAction: '/d', hiddenFields: {}, expiresAt: 0 });
    const hashes = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1], 'utf8').digest('base64')}'`);
    expect(hashes).toHaveLength(2);
    expect(csp({ ...noOrigins, accentColor: '#8a1538' }).get('style-src')).toEqual(hashes);
    expect(csp({ ...noOrigins, accentColor: '#0b3d91' }).get('style-src')).not.toEqual(hashes);
  });

  it("allows images written into the page, and only those, when it shows the bank's logo", () => {
    expect(csp({ ...noOrigins, logo: true }).get('img-src')).toEqual(['data:']);
    expect(csp(noOrigins).has('img-src')).toBe(false);
  });

  it('allows nothing else: no default source, no base URL', () => {
    const policy = csp(noOrigins);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect([...policy.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'style-src']);
  });

  it("lets the form post to the service itself and to the integrator's return URL origins", () => {
    expect(csp(noOrigins).get('form-action')).toEqual(["'self'"]);
    expect(csp({ frameAncestors: [], formActionOrigins: ['https://bank.example', 'http://localhost:3000'] }).get('form-action')).toEqual([
      "'self'",
      'https://bank.example',
      'http://localhost:3000',
    ]);
  });

  it("forbids framing with frame-ancestors 'none' and X-Frame-Options DENY when no origin may frame the page", () => {
    const headers = consentPageHeaders(noOrigins);
    expect(directives(headers['Content-Security-Policy']).get('frame-ancestors')).toEqual(["'none'"]);
    expect(headers['X-Frame-Options']).toBe('DENY');
  });

  it('lets exactly the allowed origins frame the page, without an X-Frame-Options that would forbid them', () => {
    const headers = consentPageHeaders({ frameAncestors: ['https://bank.example', 'https://www.bank.example:8443', 'https://[::1]:4443'], formActionOrigins: [] });
    expect(directives(headers['Content-Security-Policy']).get('frame-ancestors')).toEqual(['https://bank.example', 'https://www.bank.example:8443', 'https://[::1]:4443']);
    expect(headers).not.toHaveProperty('X-Frame-Options');
  });

  it('keeps the page and its single-use URL out of caches, Referer headers, sniffing and openers', () => {
    expect(consentPageHeaders(noOrigins)).toMatchObject({
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': 'text/html; charset=utf-8',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
  });

  it.each([
    ['a trailing slash', 'https://bank.example/'],
    ['a path', 'https://bank.example/embed'],
    ['a query', 'https://bank.example?x=1'],
    ['a fragment', 'https://bank.example#x'],
    ['user info', 'https://user@bank.example'],
    ['a wildcard host', 'https://*.bank.example'],
    ['a bare wildcard', '*'],
    ['a directive separator', "https://bank.example; script-src 'unsafe-inline'"],
    ['a separator without space', 'https://bank.example;'],
    ['a policy separator', 'https://bank.example,https://evil.example'],
    ['a second source', 'https://bank.example https://evil.example'],
    ['a header line break', 'https://bank.example\r\nX-Frame-Options: ALLOWALL'],
    ['a keyword', "'self'"],
    ['upper case', 'https://Bank.example'],
    ['a default port', 'https://bank.example:443'],
    ['no scheme', 'bank.example'],
    ['another scheme', 'javascript:alert(1)'],
    ['nothing', ''],
  ])('refuses an origin with %s', (_, origin) => {
    expect(() => consentPageHeaders({ frameAncestors: [origin], formActionOrigins: [] })).toThrow(/frameAncestors: .* is not a bare origin/);
    expect(() => consentPageHeaders({ frameAncestors: [], formActionOrigins: [origin] })).toThrow(/formActionOrigins: .* is not a bare origin/);
  });
});
