/**
 * The hosted consent page of the embedded capture flow and the short pages
 * that follow a decision. Plain HTML with one inline stylesheet and no script,
 * image or font, so that it renders under `default-src 'none'` and the
 * decision is an ordinary form POST that works without JavaScript.
 */
import { Markup, PageBank, ReadableCode, html, htmlDocument, list, messagePage, paragraphs, readable, santiagoTime } from './page-html';

/** One configuration the page offers. */
export interface ConsentPageItem {
  /** The configuration's title. */
  title: string;
  /** The consent text; each line becomes a paragraph. */
  text: string;
  /** REDEC terms, each code with its meaning; null for a general (non-REDEC) consent. */
  redec: { finality: ReadableCode; objectives: ReadableCode[]; dataCategories: ReadableCode[]; targets: string[] } | null;
}

export interface ConsentPageView {
  bank: PageBank;
  /** What the page offers, in order. One is decided with two buttons; several each with a choice of their own (`decision-<index>`) and one button. */
  items: ConsentPageItem[];
  /** Path the form POSTs to, e.g. `/embed/sessions/<id>/decision`. */
  formAction: string;
  /** Hidden fields the POST must carry back (session token, csrf token). Names and values both escaped. */
  hiddenFields: Record<string, string>;
  /** When the session stops accepting a decision (epoch ms); shown to the person in America/Santiago local time. */
  expiresAt: number;
}

/** The form field that carries the decision on the item at `index` of a page offering several. */
export function itemDecisionField(index: number): string {
  return `decision-${index}`;
}

export type OutcomePage = 'accepted' | 'declined' | 'partially_accepted' | 'expired' | 'already_used' | 'not_found' | 'refused' | 'link_required';

export function renderConsentPage(view: ConsentPageView): string {
  const hiddenInputs = Object.entries(view.hiddenFields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  if (view.items.length > 1) return renderSeveral(view, hiddenInputs);
  const [item] = view.items;
  return htmlDocument(
    item.title,
    view.bank,
    html`<h1>${item.title}</h1>
${paragraphs(item.text)}
${item.redec ? redecSections(item.redec, 'h2') : []}
<form method="post" action="${view.formAction}">
${hiddenInputs}
<fieldset>
<legend>¿Acepta otorgar este consentimiento?</legend>
<p>${expiryNotice(view.expiresAt)}</p>
<div class="decision">
<button type="submit" name="decision" value="accept" class="accept">Acepto</button>
<button type="submit" name="decision" value="decline" class="decline">No acepto</button>
</div>
</fieldset>
</form>`,
  );
}

/** Several consents on one page: each is read and chosen on its own (required, nothing chosen in advance), and one button sends them together. */
function renderSeveral(view: ConsentPageView, hiddenInputs: Markup[]): string {
  const title = 'Consentimientos solicitados';
  const items = view.items.map(
    (item, index) => html`<section class="item">
<h2>${item.title}</h2>
${paragraphs(item.text)}
${item.redec ? redecSections(item.redec, 'h3') : []}
<fieldset>
<legend>¿Acepta otorgar «${item.title}»?</legend>
<div class="choice">
<label><input type="radio" name="${itemDecisionField(index)}" value="accept" required> Acepto</label>
<label><input type="radio" name="${itemDecisionField(index)}" value="decline" required> No acepto</label>
</div>
</fieldset>
</section>`,
  );
  return htmlDocument(
    title,
    view.bank,
    html`<h1>${title}</h1>
<p>Revise cada consentimiento y elija si lo acepta o no. Puede aceptar unos y no otros.</p>
<form method="post" action="${view.formAction}">
${hiddenInputs}
${items}
<p>${expiryNotice(view.expiresAt)}</p>
<div class="decision">
<button type="submit" class="accept">Enviar mis respuestas</button>
</div>
</form>`,
  );
}

/** What the person reads after the decision or instead of the form; it names no configuration, customer or session. */
const OUTCOMES: Record<OutcomePage, { title: string; message: string }> = {
  accepted: {
    title: 'Consentimiento otorgado',
    message: 'Registramos que usted aceptó. Ya puede cerrar esta página.',
  },
  declined: {
    title: 'Consentimiento no otorgado',
    message: 'Registramos que usted no aceptó. Ya puede cerrar esta página.',
  },
  partially_accepted: {
    title: 'Respuestas registradas',
    message: 'Registramos qué consentimientos aceptó y cuáles no. Ya puede cerrar esta página.',
  },
  expired: {
    title: 'Este enlace venció',
    message: 'El plazo para responder terminó. Si aún desea responder, solicite un nuevo enlace a su institución.',
  },
  already_used: {
    title: 'Este enlace ya fue usado',
    message: 'Ya se registró una respuesta con este enlace. Cada enlace sirve una sola vez; si necesita responder de nuevo, solicite un nuevo enlace a su institución.',
  },
  not_found: {
    title: 'Enlace no válido',
    message: 'No encontramos esta solicitud. Revise que el enlace esté completo o solicite uno nuevo a su institución.',
  },
  // A cross-site form post or a form altered in transit: nothing was recorded.
  refused: {
    title: 'Respuesta no registrada',
    message: 'No pudimos verificar que esta respuesta viniera de la página de consentimiento, por lo que no se registró. Vuelva a abrir el enlace que le entregó su institución.',
  },
  // The page's address without its token, in a browser that holds no cookie for it: opened by hand, or the cookie was not kept.
  link_required: {
    title: 'Abra el enlace que recibió',
    message: 'Esta página se abre solo desde el enlace que le entregó su institución. Vuelva a abrir ese enlace en este navegador; si el problema sigue, permita las cookies de este sitio o abra el enlace en una ventana aparte.',
  },
};

/** `bank`: named when the page's own token was shown, so a page of this bank's session says whose it is; null on a page that proves nothing (a wrong link names no one). */
export function renderOutcomePage(outcome: OutcomePage, bank: PageBank | null = null): string {
  const { title, message } = OUTCOMES[outcome];
  return messagePage(title, message, bank);
}

function redecSections(redec: NonNullable<ConsentPageItem['redec']>, heading: 'h2' | 'h3'): Markup {
  const section = (name: string, content: Markup) => html`<section>
${new Markup(`<${heading}>`)}${name}${new Markup(`</${heading}>`)}
${content}
</section>`;
  return html`${section('Para qué se usarán sus datos', html`<p>${readable(redec.finality)}</p>`)}
${section('Objetivos', list(redec.objectives.map(readable)))}
${section('Qué datos se consultarán', list(redec.dataCategories.map(readable)))}
${section('Quién podrá consultarlos', list(redec.targets.map((target) => html`${target}`)))}`;
}

/** The zone is named because Aysén and Magallanes keep another clock than Santiago's in winter. */
function expiryNotice(expiresAt: number): string {
  const { date, time } = santiagoTime(expiresAt);
  return `Este enlace vence a las ${time} del ${date} (hora de Santiago).`;
}
