import { renderConsentPage, renderOutcomePage, type ConsentPageItem, type ConsentPageView, type OutcomePage } from './consent-page';
import { accentStylesheet, escapeHtml, PAGE_STYLESHEET } from './page-html';

const REDEC_TERMS: ConsentPageItem['redec'] = {
  finality: { meaning: 'Evaluar su solicitud de crédito', code: 'F01' },
  objectives: [
    { meaning: 'Otorgar un crédito nuevo', code: '01' },
    { meaning: 'Renegociar un crédito vigente', code: '02' },
  ],
  dataCategories: [{ meaning: 'Su información de deudas', code: 'redec.consolidated_debt_record' }],
  targets: ['Banco Ejemplo S.A.', 'Financiera Dos'],
};

/** A page offering one consent, its item's fields and the page's given together. */
const view = ({
  title = 'Consentimiento REDEC',
  text = 'Autorizo a Banco Ejemplo a consultar mi deuda consolidada.',
  redec = REDEC_TERMS,
  ...page
}: Partial<ConsentPageItem> & Partial<Omit<ConsentPageView, 'items'>> = {}): ConsentPageView => ({
  bank: { displayName: 'Banco Ejemplo', logo: null, accentColor: null },
  items: [{ title, text, redec }],
  formAction: '/embed/sessions/ses_123/decision',
  hiddenFields: { sessionToken: 'tok_abc', csrfToken: 'csrf_xyz' },
  expiresAt: Date.parse('2026-11-22T17:05:00Z'),
  ...page,
});

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const tags = (page: string, name: string) => page.match(new RegExp(`<${name}\\b[^>]*>`, 'g')) ?? [];

describe('escapeHtml', () => {
  it('escapes the five characters that can break out of text or a quoted attribute', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;');
  });

  it('escapes an ampersand that already starts an entity, so the text reads literally', () => {
    expect(escapeHtml('&lt;b&gt;')).toBe('&amp;lt;b&amp;gt;');
  });

  it('leaves other text, accents included, as it is', () => {
    expect(escapeHtml('Información ñandú ✓ / = `')).toBe('Información ñandú ✓ / = `');
  });
});

describe('renderConsentPage', () => {
  it('is a Spanish (Chile) HTML document readable on a phone', () => {
    const page = renderConsentPage(view());
    expect(page.startsWith('<!doctype html>\n<html lang="es-CL">')).toBe(true);
    expect(page).toContain('<meta charset="utf-8">');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<title>Consentimiento REDEC · Banco Ejemplo</title>');
    expect(count(page, '<main>')).toBe(1);
    expect(tags(page, 'h1')).toHaveLength(1);
    expect(page).toContain('<h1>Consentimiento REDEC</h1>');
  });

  it('writes each line of the consent text as its own paragraph, without empty ones', () => {
    const page = renderConsentPage(view({ text: 'Primero.\n\nSegundo.\r\nTercero.\n' }));
    expect(page).toContain('<p>Primero.</p>');
    expect(page).toContain('<p>Segundo.</p>');
    expect(page).toContain('<p>Tercero.</p>');
    expect(page).not.toContain('<p></p>');
  });

  it('shows purpose, objectives, data categories and targets of a REDEC consent under their headings, each code after its meaning', () => {
    const page = renderConsentPage(view());
    const headings = (page.match(/<h2>([^<]*)<\/h2>/g) ?? []).map((h) => h.replace(/<\/?h2>/g, ''));
    expect(headings).toEqual(['Para qué se usarán sus datos', 'Objetivos', 'Qué datos se consultarán', 'Quién podrá consultarlos']);
    const code = (value: string) => ` <span class="code">(código ${value})</span>`;
    expect(page).toContain(`<h2>Para qué se usarán sus datos</h2>\n<p>Evaluar su solicitud de crédito${code('F01')}</p>`);
    expect(page).toContain(`<h2>Objetivos</h2>\n<ul><li>Otorgar un crédito nuevo${code('01')}</li><li>Renegociar un crédito vigente${code('02')}</li></ul>`);
    expect(page).toContain(`<h2>Qué datos se consultarán</h2>\n<ul><li>Su información de deudas${code('redec.consolidated_debt_record')}</li></ul>`);
    expect(page).toContain('<h2>Quién podrá consultarlos</h2>\n<ul><li>Banco Ejemplo S.A.</li><li>Financiera Dos</li></ul>');
  });

  it('names the bank above everything else on the page', () => {
    const page = renderConsentPage(view());
    expect(page).toMatch(/<body>\s*<header class="bank"><p>Banco Ejemplo<\/p><\/header>\s*<main>\s*<h1>/);
  });

  it('has no REDEC sections for a general consent', () => {
    const page = renderConsentPage(view({ redec: null }));
    expect(tags(page, 'h2')).toHaveLength(0);
    expect(tags(page, 'section')).toHaveLength(0);
    expect(page).not.toContain('código');
  });

  it('asks the question in a legend and offers accept then decline as two submit buttons of one POST form', () => {
    const page = renderConsentPage(view());
    expect(tags(page, 'form')).toEqual(['<form method="post" action="/embed/sessions/ses_123/decision">']);
    expect(page).toMatch(/<fieldset>\s*<legend>¿Acepta otorgar este consentimiento\?<\/legend>/);
    const buttons = page.match(/<button\b[^>]*>[^<]*<\/button>/g) ?? [];
    expect(buttons).toEqual([
      '<button type="submit" name="decision" value="accept" class="accept">Acepto</button>',
      '<button type="submit" name="decision" value="decline" class="decline">No acepto</button>',
    ]);
    // Keyboard order is document order: the buttons sit inside the fieldset, inside the form, and nothing reorders them.
    expect(page.indexOf('<fieldset>')).toBeLessThan(page.indexOf('<button'));
    expect(page.lastIndexOf('</button>')).toBeLessThan(page.indexOf('</fieldset>'));
    expect(page.indexOf('</fieldset>')).toBeLessThan(page.indexOf('</form>'));
    expect(page).not.toContain('tabindex');
  });

  it('carries the hidden fields back in the form', () => {
    const page = renderConsentPage(view());
    expect(tags(page, 'input')).toEqual(['<input type="hidden" name="sessionToken" value="tok_abc">', '<input type="hidden" name="csrfToken" value="csrf_xyz">']);
    expect(page.indexOf('<input')).toBeGreaterThan(page.indexOf('<form'));
    expect(page.lastIndexOf('<input')).toBeLessThan(page.indexOf('</form>'));
  });

  it('escapes hidden field names and values and the form action, so none can leave its attribute', () => {
    const page = renderConsentPage(
      view({ formAction: '/embed/sessions/a"><script>x</script>/decision', hiddenFields: { 'x"><script>': `" onfocus='alert(1)' x="` } }),
    );
    expect(page).toContain('action="/embed/sessions/a&quot;&gt;&lt;script&gt;x&lt;/script&gt;/decision"');
    expect(tags(page, 'input')).toEqual(['<input type="hidden" name="x&quot;&gt;&lt;script&gt;" value="&quot; onfocus=&#39;alert(1)&#39; x=&quot;">']);
    expect(page).not.toContain('<script');
  });

  it('escapes every string shown as text', () => {
    const hostile = (label: string) => `<img src=x onerror="${label}">'&`;
    const page = renderConsentPage(
      view({
        title: hostile('title'),
        text: hostile('text'),
        bank: { displayName: hostile('bank'), logo: null, accentColor: null },
        redec: {
          finality: { meaning: hostile('finality'), code: hostile('finalityCode') },
          objectives: [{ meaning: hostile('objective'), code: hostile('objectiveCode') }],
          dataCategories: [{ meaning: hostile('dataCategory'), code: hostile('dataCategoryCode') }],
          targets: [hostile('target')],
        },
      }),
    );
    expect(page).not.toContain('<img');
    for (const label of ['title', 'text', 'bank', 'finality', 'finalityCode', 'objective', 'objectiveCode', 'dataCategory', 'dataCategoryCode', 'target']) {
      expect(page).toContain(`&lt;img src=x onerror=&quot;${label}&quot;&gt;&#39;&amp;`);
    }
    expect(page).toContain('<title>&lt;img src=x onerror=&quot;title&quot;&gt;&#39;&amp; · &lt;img src=x onerror=&quot;bank&quot;&gt;&#39;&amp;</title>');
  });

  it.each([
    ['in summer time (UTC-3)', '2026-11-22T17:05:00Z', 'Este enlace vence a las 14:05 del 22-11-2026'],
    ['in winter time (UTC-4)', '2026-07-15T18:05:00Z', 'Este enlace vence a las 14:05 del 15-07-2026'],
    ['on the Santiago date, a day behind UTC late in the evening', '2026-11-23T02:30:00Z', 'Este enlace vence a las 23:30 del 22-11-2026'],
    ['at midnight, on a 24-hour clock that starts at 00', '2026-01-01T03:00:00Z', 'Este enlace vence a las 00:00 del 01-01-2026'],
    ['the last minute before summer time starts', '2026-09-06T03:59:00Z', 'Este enlace vence a las 23:59 del 05-09-2026'],
    ['the first instant of summer time, when 00:00 becomes 01:00', '2026-09-06T04:00:00Z', 'Este enlace vence a las 01:00 del 06-09-2026'],
    ['the first 23:30 of the night summer time ends', '2026-04-05T02:30:00Z', 'Este enlace vence a las 23:30 del 04-04-2026'],
    ['the repeated 23:30 after summer time ends', '2026-04-05T03:30:00Z', 'Este enlace vence a las 23:30 del 04-04-2026'],
    ['with the seconds dropped, never rounded up past the real end', '2026-11-22T17:05:59.999Z', 'Este enlace vence a las 14:05 del 22-11-2026'],
  ])('shows the expiry in Santiago time %s', (_, instant, notice) => {
    expect(renderConsentPage(view({ expiresAt: Date.parse(instant) }))).toContain(`${notice} (hora de Santiago).`);
  });

  it('loads nothing from anywhere: no script, link, image, url() or inline style attribute', () => {
    const page = renderConsentPage(view());
    for (const forbidden of ['<script', '<link', '<img', '<iframe', ' src=', ' href=', ' style=', 'url(', '@import']) {
      expect(page).not.toContain(forbidden);
    }
  });

  it('inlines PAGE_STYLESHEET as its one <style>', () => {
    const page = renderConsentPage(view());
    expect(page.match(/<style>([\s\S]*?)<\/style>/g)).toEqual([`<style>${PAGE_STYLESHEET}</style>`]);
  });

  it("writes the bank's logo into the page beside its name, as decoration the name already says", () => {
    const page = renderConsentPage(view({ bank: { displayName: 'Banco Ejemplo', logo: { mediaType: 'image/png', base64: 'iVBORw0KGgo=' }, accentColor: null } }));
    expect(page).toContain('<header class="bank"><img class="logo" src="data:image/png;base64,iVBORw0KGgo=" alt=""><p>Banco Ejemplo</p></header>');
    expect(tags(page, 'img')).toHaveLength(1);
  });

  it("sets the bank's colour in a stylesheet of its own, after the page's", () => {
    const page = renderConsentPage(view({ bank: { displayName: 'Banco Ejemplo', logo: null, accentColor: '#8a1538' } }));
    expect(page.match(/<style>([\s\S]*?)<\/style>/g)).toEqual([`<style>${PAGE_STYLESHEET}</style>`, '<style>:root{--accent:#8a1538}</style>']);
    expect(accentStylesheet('#8a1538')).toBe(':root{--accent:#8a1538}');
  });
});

describe('renderConsentPage with several consents', () => {
  const several = (): ConsentPageView => ({
    ...view(),
    items: [
      { title: 'Consulta REDEC', text: 'Autorizo la consulta.', redec: REDEC_TERMS },
      { title: 'Términos <del servicio>', text: 'Acepto los términos.', redec: null },
    ],
  });

  it('offers each consent with a choice of its own, nothing chosen in advance, and one button that sends them all', () => {
    const page = renderConsentPage(several());
    expect(page).toContain('<title>Consentimientos solicitados · Banco Ejemplo</title>');
    expect(count(page, '<h1>')).toBe(1);
    expect(page.match(/<h2>[^<]+<\/h2>/g)).toEqual(['<h2>Consulta REDEC</h2>', '<h2>Términos &lt;del servicio&gt;</h2>']);
    // The REDEC terms sit under their consent's heading.
    expect(page.match(/<h3>[^<]+<\/h3>/g)).toEqual(['<h3>Para qué se usarán sus datos</h3>', '<h3>Objetivos</h3>', '<h3>Qué datos se consultarán</h3>', '<h3>Quién podrá consultarlos</h3>']);
    expect(page).toContain('<legend>¿Acepta otorgar «Términos &lt;del servicio&gt;»?</legend>');
    expect(tags(page, 'input').filter((tag) => tag.includes('radio'))).toEqual([
      '<input type="radio" name="decision-0" value="accept" required>',
      '<input type="radio" name="decision-0" value="decline" required>',
      '<input type="radio" name="decision-1" value="accept" required>',
      '<input type="radio" name="decision-1" value="decline" required>',
    ]);
    expect(page).not.toContain('checked');
    expect(tags(page, 'button')).toEqual(['<button type="submit" class="accept">']);
    expect(page.indexOf('decision-1')).toBeLessThan(page.indexOf('<button'));
  });

  it('keeps each choice a 44px target, and its keyboard focus visible', () => {
    const rule = (selector: string) => PAGE_STYLESHEET.split('\n').find((line) => line.startsWith(`${selector}{`)) ?? '';
    expect(rule('.choice label')).toContain('min-height:44px');
    expect(rule('.choice input:focus-visible')).toMatch(/outline:3px solid #1a1a1a/);
  });
});

describe('renderOutcomePage', () => {
  it.each<[OutcomePage, string]>([
    ['accepted', 'Consentimiento otorgado'],
    ['declined', 'Consentimiento no otorgado'],
    ['partially_accepted', 'Respuestas registradas'],
    ['expired', 'Este enlace venció'],
    ['already_used', 'Este enlace ya fue usado'],
    ['not_found', 'Enlace no válido'],
  ])('says what happened for %s, in a Spanish page with no form', (outcome, title) => {
    const page = renderOutcomePage(outcome);
    expect(page.startsWith('<!doctype html>\n<html lang="es-CL">')).toBe(true);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain(`<title>${title}</title>`);
    expect(page).toContain(`<h1>${title}</h1>`);
    expect(page).toMatch(/<main>\s*<h1>[^<]+<\/h1>\s*<p>[^<]+<\/p>\s*<\/main>/);
    expect(page).not.toContain('<form');
    expect(page.match(/<style>([\s\S]*?)<\/style>/g)).toEqual([`<style>${PAGE_STYLESHEET}</style>`]);
  });

  it('names the bank when the page was opened with its token', () => {
    const page = renderOutcomePage('accepted', { displayName: 'Banco Ejemplo', logo: null, accentColor: '#8a1538' });
    expect(page).toMatch(/<body>\s*<header class="bank"><p>Banco Ejemplo<\/p><\/header>\s*<main>\s*<h1>Consentimiento otorgado<\/h1>/);
    expect(page).toContain('<title>Consentimiento otorgado · Banco Ejemplo</title>');
  });
});

/** WCAG 2.x relative luminance and contrast ratio of two `#rrggbb` colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

describe('PAGE_STYLESHEET', () => {
  const rule = (selector: string) => {
    const body = PAGE_STYLESHEET.split('\n').find((line) => line.startsWith(`${selector}{`));
    if (!body) throw new Error(`no rule for ${selector}`);
    return body;
  };
  // The accent is a custom property: its value is the page's own colour, unless the bank sets one (checked for 4.5:1 against white when set).
  const accent = rule(':root').match(/--accent:(#[0-9a-f]{6})/)?.[1];
  const colour = (selector: string, property: string) => {
    const match = rule(selector).replace(/var\(--accent\)/g, accent ?? 'var(--accent)').match(new RegExp(`[{;]${property}:(#[0-9a-f]{6})`));
    if (!match) throw new Error(`no ${property} in ${selector}`);
    return match[1];
  };

  it.each(['body', '.accept', '.decline'])('gives %s text a contrast of at least 4.5:1 with its background', (selector) => {
    expect(contrast(colour(selector, 'color'), colour(selector, 'background'))).toBeGreaterThanOrEqual(4.5);
  });

  it('outlines a keyboard-focused button visibly, offset onto the page background', () => {
    const focus = rule('button:focus-visible');
    const outline = focus.match(/outline:(\d+)px solid (#[0-9a-f]{6})/);
    expect(outline).not.toBeNull();
    expect(Number(outline![1])).toBeGreaterThanOrEqual(2);
    expect(contrast(outline![2], colour('body', 'background'))).toBeGreaterThanOrEqual(3);
    expect(focus).toMatch(/outline-offset:[1-9]/);
  });

  it('keeps buttons at least 44px tall, wrapping to full width on a narrow screen, in a width-capped container', () => {
    expect(rule('button')).toContain('min-height:44px');
    expect(rule('button')).toMatch(/flex:1 1 \d+rem/);
    expect(rule('.decision')).toContain('flex-wrap:wrap');
    expect(rule('main')).toMatch(/max-width:\d+rem/);
  });
});
