/**
 * What every page the service shows a person is made of: one stylesheet, the
 * bank named above the content, and markup that escapes every string it is
 * given. Plain HTML with no script, image (but the bank's logo) or font, so
 * each page renders under `default-src 'none'` and works without JavaScript.
 */

/** A code as a person reads it: what it means, with the code beside it. */
export interface ReadableCode {
  /** Null where the bank has given none (a grant recorded before it did, a meaning removed since). */
  meaning: string | null;
  code: string;
}

/** The bank the person is dealing with, as it presents itself. */
export interface PageBank {
  displayName: string;
  /** Written into the page as a `data:` image; null for none. */
  logo: { mediaType: string; base64: string } | null;
  /** `#rrggbb` with at least 4.5:1 against white; null for the page's own colour. */
  accentColor: string | null;
}

/*
 * Colours (WCAG 2.x contrast ratios):
 * - text #1a1a1a on #ffffff: 17.40:1
 * - "Acepto": #ffffff on the accent (#0b3d91 unless the bank set its own): 10.04:1, and at least 4.5:1 for any the bank sets
 * - "No acepto": the accent on #ffffff, 2px accent border: likewise
 * - a code beside its meaning, #595959 on #ffffff: 7.00:1
 * - fieldset border #595959 on #ffffff: 7.00:1
 * - focus outline #1a1a1a, offset onto the #ffffff background: 17.40:1
 * - a link, and a notice's border, in the accent on #ffffff: at least 4.5:1
 * The two buttons differ by their words and by fill versus outline, never by
 * hue alone; both are the same size so that declining is as easy as accepting.
 * On a page of several consents, each choice is a pair of radio buttons
 * whose whole label (44px high) is the target, "No acepto" as near as
 * "Acepto", and neither chosen in advance.
 *
 * `flex: 1 1 12rem` puts the buttons side by side where two 12rem columns
 * fit and stacks them full width on a phone (360px leaves about 290px).
 * Sizes are in rem so that the person's own font size setting applies.
 */
export const PAGE_STYLESHEET = [
  ':root{color-scheme:light;--accent:#0b3d91}',
  '*,*::before,*::after{box-sizing:border-box}',
  'body{margin:0;background:#ffffff;color:#1a1a1a;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;-webkit-text-size-adjust:100%}',
  'main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem 2rem;overflow-wrap:anywhere}',
  'h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}',
  'h2{font-size:1.125rem;margin:1.5rem 0 .5rem}',
  'p,ul{margin:0 0 .75rem}',
  'ul{padding-left:1.25rem}',
  'fieldset{border:1px solid #595959;border-radius:.5rem;margin:1.5rem 0 0;padding:1rem}',
  'legend{font-weight:600;padding:0 .25rem}',
  '.decision{display:flex;flex-wrap:wrap;gap:.75rem}',
  'button{flex:1 1 12rem;min-height:44px;padding:.625rem 1rem;border:2px solid var(--accent);border-radius:.5rem;font:inherit;font-weight:600;cursor:pointer}',
  '.accept{background:var(--accent);color:#ffffff}',
  '.decline{background:#ffffff;color:var(--accent)}',
  'button:focus-visible{outline:3px solid #1a1a1a;outline-offset:3px}',
  'h3{font-size:1rem;margin:1rem 0 .25rem}',
  '.item{border-top:1px solid #595959;margin-top:1.5rem;padding-top:.5rem}',
  'form>p{margin-top:1.5rem}',
  '.choice{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem}',
  '.choice label{display:flex;align-items:center;gap:.5rem;min-height:44px;cursor:pointer}',
  '.choice input{width:1.25rem;height:1.25rem;margin:0;accent-color:var(--accent)}',
  '.choice input:focus-visible{outline:3px solid #1a1a1a;outline-offset:3px}',
  '.bank{display:flex;align-items:center;gap:.75rem;max-width:40rem;margin:0 auto;padding:1rem 1rem .75rem;border-bottom:4px solid var(--accent);font-size:1.125rem;font-weight:600;overflow-wrap:anywhere}',
  '.bank p{margin:0}',
  '.logo{height:2.5rem;width:auto;max-width:40%}',
  '.code{color:#595959}',
  'h4{font-size:1rem;margin:1rem 0 .25rem}',
  'dl{margin:0 0 .75rem}',
  'dl>div{display:flex;flex-wrap:wrap;gap:0 .5rem}',
  'dt{font-weight:600}',
  'dd{margin:0}',
  'dd ul{margin:0}',
  '.notice{border:2px solid var(--accent);border-radius:.5rem;padding:.75rem 1rem}',
  '.option label{display:block;padding:.5rem 0 .5rem 2rem;text-indent:-2rem;min-height:44px;cursor:pointer}',
  '.option input{width:1.25rem;height:1.25rem;margin:0 .75rem 0 0;vertical-align:-.2rem;accent-color:var(--accent)}',
  '.option input:focus-visible{outline:3px solid #1a1a1a;outline-offset:3px}',
  'textarea{display:block;width:100%;margin:.25rem 0 1rem;padding:.5rem;border:1px solid #595959;border-radius:.5rem;font:inherit}',
  'textarea:focus-visible{outline:3px solid #1a1a1a;outline-offset:1px}',
  'a{color:var(--accent)}',
  'a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}',
  '.end{margin-top:2rem;border-top:1px solid #595959;padding-top:1rem}',
].join('\n');

/**
 * The bank's colour, in a stylesheet of its own after PAGE_STYLESHEET: the
 * page's rules stay one fixed text, and each policy allows the two by hash.
 * The colour was checked to have at least 4.5:1 against white when the bank
 * set it, as white text on it and as text on white both need.
 */
export function accentStylesheet(accentColor: string): string {
  return `:root{--accent:${accentColor}}`;
}

/** Escapes the five characters that can end a text run or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Markup this module wrote; every plain string interpolated into `html` is escaped instead. */
export class Markup {
  constructor(readonly source: string) {}
}

/** Escaping by default: only a `Markup` passes through, so a dynamic string cannot reach the page unescaped by omission. */
export function html(literals: TemplateStringsArray, ...values: (string | Markup | readonly Markup[])[]): Markup {
  let source = literals[0];
  values.forEach((value, index) => {
    source += interpolation(value) + literals[index + 1];
  });
  return new Markup(source);
}

function interpolation(value: string | Markup | readonly Markup[]): string {
  if (value instanceof Markup) return value.source;
  if (typeof value === 'string') return escapeHtml(value);
  return value.map((markup) => markup.source).join('');
}

/** `bank`: who the person is dealing with, named above the page's content; null where the page may not say (an unknown or unproven link). */
export function htmlDocument(title: string, bank: PageBank | null, content: Markup): string {
  const accent = bank?.accentColor ? html`\n<style>${new Markup(accentStylesheet(bank.accentColor))}</style>` : [];
  // A landmark of its own (a header outside main is the page's banner), read before the content.
  // The logo is decoration: the name beside it says who the bank is, so it has an empty alt and is not read twice.
  const logo = bank?.logo ? html`<img class="logo" src="data:${bank.logo.mediaType};base64,${bank.logo.base64}" alt="">` : [];
  const header = bank ? html`<header class="bank">${logo}<p>${bank.displayName}</p></header>\n` : [];
  return html`<!doctype html>
<html lang="es-CL">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${bank ? `${title} · ${bank.displayName}` : title}</title>
<style>${new Markup(PAGE_STYLESHEET)}</style>${accent}
</head>
<body>
${header}<main>
${content}
</main>
</body>
</html>
`.source;
}

/** A page that only says one thing: what happened, or why there is nothing to show. */
export function messagePage(title: string, message: string, bank: PageBank | null): string {
  return htmlDocument(title, bank, html`<h1>${title}</h1>
<p>${message}</p>`);
}

export function paragraphs(text: string): Markup[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => html`<p>${line}</p>`);
}

/** The meaning first, in the person's words; the code after it, for whoever must match it with a document. A code without a meaning is named as one, once, never shown as nothing. */
export function readable({ meaning, code }: ReadableCode): Markup {
  if (meaning === null) return html`Código ${code}`;
  return html`${meaning} <span class="code">(código ${code})</span>`;
}

export function list(items: readonly Markup[]): Markup {
  return html`<ul>${items.map((item) => html`<li>${item}</li>`)}</ul>`;
}

const SANTIAGO_CLOCK = new Intl.DateTimeFormat('es-CL', {
  timeZone: 'America/Santiago',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  // es-CL defaults to a 12-hour clock in current ICU data, and `hour12: false` writes midnight as 24:00.
  hourCycle: 'h23',
});

/**
 * An instant as a person in Chile reads it: `dd-mm-aaaa` and `hh:mm` on
 * Santiago's clock. Seconds are dropped, not rounded, so a time shown is
 * never after the real one.
 */
export function santiagoTime(epochMs: number): { date: string; time: string } {
  const part = Object.fromEntries(SANTIAGO_CLOCK.formatToParts(epochMs).map(({ type, value }) => [type, value]));
  return { date: `${part.day}-${part.month}-${part.year}`, time: `${part.hour}:${part.minute}` };
}

/** `aaaa-mm-ddThh:mm`, as an `<input type="datetime-local">` sends it. */
const LOCAL_DATE_TIME = /^(\d{4})-(0[1-9]|1[0-2])-(\d{2})T([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * The instant a person in Chile means by a date and time on Santiago's
 * clock (what a `datetime-local` field sends), or null for anything else.
 * The offset is Santiago's at that instant, found from the guess made with
 * the offset at the wall time read as UTC: once more settles a change of
 * summer time; a time that does not exist on that day (the hour skipped in
 * spring) is read with the offset before the change.
 */
export function santiagoInstant(local: string): number | null {
  const match = LOCAL_DATE_TIME.exec(local);
  if (!match) return null;
  const [, year, month, day, hour, minute] = match.map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  if (Number.isNaN(wall) || new Date(wall).getUTCDate() !== day) return null;
  const offsetAt = (instant: number) => {
    const part = Object.fromEntries(SANTIAGO_CLOCK.formatToParts(instant).map(({ type, value }) => [type, Number(value)]));
    return Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute) - Math.floor(instant / 60_000) * 60_000;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}
