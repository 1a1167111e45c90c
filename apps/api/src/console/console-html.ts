import { createHash } from 'node:crypto';
import type { ConsoleRole } from '@ledger/console';
import { Markup, html, readable, santiagoTime } from '@ledger/embed';
import type { AuditBundle, BundleVerification } from '@ledger/ledger-log';
import type { ConsentHistory, NotificationReason, OverdueNotification, ReadableTerms, RegulatoryRepresentation } from '@ledger/redec';
import { ConsoleLanguage, EvidenceField, textOf } from './console-text';

/*
 * The console's pages: rendered by the service, plain HTML forms with no
 * script, one stylesheet allowed by its hash (decision 0093). Every string
 * goes through `html`, which escapes all but the markup written here.
 */

/*
 * Colours (WCAG 2.x contrast ratios on #ffffff): text #1a1a1a 17.40:1, the
 * accent #0b3d91 10.04:1 (links, the button's fill under white text, the
 * header's rule), muted text #595959 7.00:1, the error's #a4161a 7.40:1.
 * Targets are at least 44px high; sizes in rem follow the person's font size.
 */
const STYLESHEET = [
  ':root{color-scheme:light}',
  '*,*::before,*::after{box-sizing:border-box}',
  'body{margin:0;background:#ffffff;color:#1a1a1a;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;padding:.75rem 1rem;border-bottom:4px solid #0b3d91}',
  'header p{margin:0;font-weight:600}',
  'main{max-width:48rem;margin:0 auto;padding:1.5rem 1rem 2rem;overflow-wrap:anywhere}',
  'h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}',
  'p{margin:0 0 .75rem}',
  'label{display:block;font-weight:600;margin:1rem 0 .25rem}',
  'input{display:block;width:100%;max-width:24rem;min-height:44px;padding:.5rem;border:1px solid #595959;border-radius:.375rem;font:inherit}',
  'button{min-height:44px;margin-top:1.25rem;padding:.5rem 1.25rem;border:2px solid #0b3d91;border-radius:.375rem;background:#0b3d91;color:#ffffff;font:inherit;font-weight:600;cursor:pointer}',
  'header button{margin:0;background:#ffffff;color:#0b3d91}',
  'nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}',
  'nav a{display:inline-block;padding:.625rem 0}',
  'a{color:#0b3d91}',
  'input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}',
  '.hint{color:#595959}',
  '.error{border-left:4px solid #a4161a;padding:.5rem .75rem;color:#a4161a;font-weight:600}',
  '.secret{font-family:ui-monospace,monospace;font-size:1.125rem;letter-spacing:.05em}',
  'dl{margin:0}',
  'dt{font-weight:600}',
  'dd{margin:0 0 .5rem}',
  'select{display:block;width:100%;max-width:24rem;min-height:44px;padding:.5rem;border:1px solid #595959;border-radius:.375rem;font:inherit;background:#ffffff;color:#1a1a1a}',
  // A table wider than a phone scrolls in its own region (WCAG reflow's exception for data tables), not the page.
  '.table{overflow-x:auto}',
  'table{border-collapse:collapse;width:100%;font-size:.875rem}',
  'th,td{border-bottom:1px solid #595959;padding:.375rem .5rem;text-align:left;vertical-align:top}',
  '.hash{font-family:ui-monospace,monospace;overflow-wrap:anywhere}',
  'pre{white-space:pre-wrap}',
  '.code{color:#595959}',
  '.notice{border-left:4px solid #0b3d91;padding:.5rem .75rem;font-weight:600}',
  '.error ul{margin:0;padding-left:1.25rem}',
  'h2{font-size:1.125rem;margin:2rem 0 .5rem}',
].join('');

/** Headers of every console page: nothing runs, nothing is framed, no form posts elsewhere, nothing is kept. */
export const CONSOLE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLESHEET, 'utf8').digest('base64')}'`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
};

/** Where a page's links and forms point, under the service's public URL. */
export interface ConsoleView {
  language: ConsoleLanguage;
  /** `/console` under the public URL's path. */
  base: string;
}

/** The signed-in person, as the header shows them. */
export interface SignedInView extends ConsoleView {
  email: string;
  csrfToken: string;
}

function page(view: ConsoleView, title: string, content: Markup, signedIn?: SignedInView): string {
  const t = textOf(view.language);
  const signOut = signedIn
    ? html`<nav aria-label="${t.navigation}"><a href="${view.base}">${t.home}</a> <a href="${view.base}/notices/overdue">${t.overdue}</a></nav><form method="post" action="${view.base}/sign-out"><input type="hidden" name="csrf" value="${signedIn.csrfToken}"><button type="submit">${t.signOut}</button></form>`
    : html``;
  return html`<!doctype html>
<html lang="${view.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${t.console}</title>
<style>${new Markup(STYLESHEET)}</style>
</head>
<body>
<header><p>${t.console}</p>${signOut}</header>
<main>
<h1>${title}</h1>
${content}
</main>
</body>
</html>
`.source;
}

/** The refusal a form shows above itself, announced to screen readers as it appears. */
function errorOf(message: string | undefined): Markup {
  return message === undefined ? html`` : html`<p class="error" role="alert">${message}</p>`;
}

export function signInPage(view: ConsoleView, error?: string): string {
  const t = textOf(view.language);
  return page(
    view,
    t.signIn,
    html`${errorOf(error)}<form method="post" action="${view.base}/sign-in">
<label for="email">${t.email}</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254">
<label for="password">${t.password}</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="512">
<button type="submit">${t.continue}</button>
</form>`,
  );
}

export function newPasswordPage(view: ConsoleView, csrfToken: string, length: { min: number; max: number }, error?: string): string {
  const t = textOf(view.language);
  return page(
    view,
    t.newPassword,
    html`${errorOf(error)}<p>${t.newPasswordIntro}</p>
<form method="post" action="${view.base}/sign-in/new-password">
<input type="hidden" name="csrf" value="${csrfToken}">
<label for="new-password">${t.newPasswordLabel}</label><input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength="${String(length.min)}" maxlength="${String(length.max)}" aria-describedby="new-password-hint">
<p class="hint" id="new-password-hint">${t.passwordLength(length.min, length.max)}</p>
<button type="submit">${t.continue}</button>
</form>`,
  );
}

/** The enrolment's key in groups of four, as people copy it. */
function grouped(secret: string): string {
  return secret.match(/.{1,4}/g)!.join(' ');
}

export function codePage(view: ConsoleView, csrfToken: string, enrolment: { secret: string; uri: string } | null, error?: string): string {
  const t = textOf(view.language);
  const intro = enrolment
    ? html`<p>${t.enrolIntro}</p>
<dl><dt>${t.secret}</dt><dd class="secret">${grouped(enrolment.secret)}</dd></dl>
<p><a href="${enrolment.uri}">${t.openInApp}</a></p>`
    : html`<p>${t.codeIntro}</p>`;
  return page(
    view,
    enrolment ? t.enrol : t.code,
    html`${errorOf(error)}${intro}
<form method="post" action="${view.base}/sign-in/code">
<input type="hidden" name="csrf" value="${csrfToken}">
<label for="code">${t.codeLabel}</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required maxlength="7">
<button type="submit">${t.continue}</button>
</form>`,
  );
}

export function homePage(view: SignedInView, session: { tenantName: string; role: ConsoleRole; expiresAt: number }): string {
  const t = textOf(view.language);
  const ends = santiagoTime(session.expiresAt);
  return page(
    view,
    t.console,
    html`<dl>
<dt>${t.signedInAs}</dt><dd>${view.email}</dd>
<dt>${t.tenant}</dt><dd>${session.tenantName}</dd>
<dt>${t.role}</dt><dd>${t.roles[session.role]}</dd>
<dt>${t.sessionEnds}</dt><dd>${ends.date} ${ends.time}</dd>
</dl>
${searchForm(view)}`,
    view,
  );
}

/** A form that did not come from the console's own page, or came after its session ended. */
export function formRefusedPage(view: ConsoleView): string {
  const t = textOf(view.language);
  return page(view, t.formRefused, html`<p>${t.formRefusedText}</p><p><a href="${view.base}">${t.backToConsole}</a></p>`);
}

/** What a search looks consents up by: the API's lookups (GET /v1/redec/consents). */
export const SEARCH_FIELDS = ['internalConsentCode', 'creditOperationReference'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

function searchForm(view: ConsoleView, current?: { by: SearchField; value: string }): Markup {
  const t = textOf(view.language);
  const label: Record<SearchField, string> = { internalConsentCode: t.byInternalConsentCode, creditOperationReference: t.byCreditOperationReference };
  const options = SEARCH_FIELDS.map((field) => (field === current?.by ? html`<option value="${field}" selected>${label[field]}</option>` : html`<option value="${field}">${label[field]}</option>`));
  return html`<h2>${t.search}</h2>
<form method="get" action="${view.base}/consents" role="search">
<label for="by">${t.searchBy}</label><select id="by" name="by">${options}</select>
<label for="value">${t.searchValue}</label><input id="value" name="value" type="search" required maxlength="200" value="${current?.value ?? ''}">
<button type="submit">${t.searchButton}</button>
</form>`;
}

/** A table in a region of its own that scrolls sideways when it is wider than the screen; focusable, so that a keyboard can scroll it. */
function scrolling(label: string, table: Markup): Markup {
  return html`<div class="table" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

function instant(epochMs: number | null): string {
  if (epochMs === null) return '';
  const { date, time } = santiagoTime(epochMs);
  return `${date} ${time}`;
}

/** The consents a search found, each a link to its page. */
export function searchResultsPage(view: SignedInView, search: { by: SearchField; value: string }, consents: readonly RegulatoryRepresentation[]): string {
  const t = textOf(view.language);
  const rows = consents.map(
    (consent) => html`<tr><td><a href="${view.base}/consents/${consent.redecConsentId}">${consent.internalConsentCode}</a></td><td>${t.statuses[consent.status]}</td><td>${instant(consent.grantedAt)}</td></tr>`,
  );
  return page(
    view,
    t.search,
    html`${searchForm(view, search)}
<h2>${t.results(consents.length)}</h2>
${consents.length === 0 ? html`` : scrolling(t.results(consents.length), html`<table><thead><tr><th scope="col">${t.fields.internalConsentCode}</th><th scope="col">${t.fields.status}</th><th scope="col">${t.fields.grantedAt}</th></tr></thead><tbody>${rows}</tbody></table>`)}`,
    view,
  );
}

/** A consent's regulatory representation in words, and, for a role that may read it, its history. */
/**
 * The evidence form of a consent's page, for a role that records it: as
 * first shown, or as posted with what was wrong (`errors`, a field and the
 * API's reason each; `refusal`, a rule of the consent's that refused it).
 */
export interface EvidenceForm {
  idempotencyKey: string;
  values: Partial<Record<EvidenceField, string>>;
  errors?: ReadonlyArray<{ field: string; reason: string }>;
  refusal?: string;
  recorded?: boolean;
}

function evidenceForm(view: SignedInView, redecConsentId: string, form: EvidenceForm): Markup {
  const t = textOf(view.language);
  const label = t.evidenceFields;
  const value = (field: EvidenceField) => form.values[field] ?? '';
  const choice = <C extends string>(field: EvidenceField, choices: Record<C, string>) =>
    html`<select id="evidence-${field}" name="${field}">${(Object.keys(choices) as C[]).map((option) =>
      option === value(field) ? html`<option value="${option}" selected>${choices[option]}</option>` : html`<option value="${option}">${choices[option]}</option>`,
    )}</select>`;
  const text = (field: EvidenceField, attributes: Markup = html`required`) => html`<input id="evidence-${field}" name="${field}" type="text" value="${value(field)}" ${attributes}>`;
  const errors = form.errors?.length
    ? html`<div class="error" role="alert"><p>${t.checkFields}</p><ul>${form.errors.map((error) => html`<li>${(label as Record<string, string>)[error.field] ?? error.field}: ${error.reason}</li>`)}</ul></div>`
    : html``;
  const refusal = form.refusal === undefined ? html`` : html`<p class="error" role="alert">${t.refusedRule} ${form.refusal}</p>`;
  const recorded = form.recorded ? html`<p class="notice" role="status">${t.recorded}</p>` : html``;
  return html`<h2 id="notice">${t.recordNotice}</h2>
${recorded}${errors}${refusal}<p>${t.recordNoticeText}</p>
<form method="post" action="${view.base}/consents/${redecConsentId}/notification-evidence">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<input type="hidden" name="idempotencyKey" value="${form.idempotencyKey}">
<label for="evidence-notificationReason">${label.notificationReason}</label>${choice('notificationReason', t.reasons satisfies Record<NotificationReason, string>)}
<label for="evidence-notificationChannel">${label.notificationChannel}</label>${text('notificationChannel', html`required maxlength="50"`)}
<label for="evidence-status">${label.status}</label>${choice('status', t.deliveryStatuses)}
<label for="evidence-sentAt">${label.sentAt}</label><input id="evidence-sentAt" name="sentAt" type="datetime-local" value="${value('sentAt')}" required>
<label for="evidence-recipientHash">${label.recipientHash}</label>${text('recipientHash', html`required minlength="32" maxlength="128"`)}
<label for="evidence-sourceSystem">${label.sourceSystem}</label>${text('sourceSystem', html`required maxlength="100"`)}
<label for="evidence-sourceReference">${label.sourceReference}</label>${text('sourceReference', html`required maxlength="200"`)}
<label for="evidence-contentSha256">${label.contentSha256}</label>${text('contentSha256', html`required pattern="[0-9a-f]{64}"`)}
<label for="evidence-contentReference">${label.contentReference}</label>${text('contentReference', html`maxlength="500"`)}
<button type="submit">${t.recordButton}</button>
</form>`;
}

export function consentPage(view: SignedInView, consent: RegulatoryRepresentation, terms: ReadableTerms, history: ConsentHistory | null, evidence: EvidenceForm | null = null): string {
  const t = textOf(view.language);
  const f = t.fields;
  const meaning = (kind: 'finality' | 'objective' | 'medium' | 'channel', code: string) => readable({ meaning: terms.meaningOf(kind, code), code });
  // Each extension by its operation, from when it was extended to when it ended.
  const extensions = consent.creditExtensions.map(
    (extension) => html`<li>${extension.creditOperationReference}: ${instant(extension.extendedAt)}${extension.endedAt === null ? '' : ` – ${instant(extension.endedAt)}`}</li>`,
  );
  const rows: Markup[] = [
    html`<dt>${f.status}</dt><dd>${t.statuses[consent.status]}</dd>`,
    html`<dt>${f.grantedAt}</dt><dd>${instant(consent.grantedAt)}</dd>`,
    html`<dt>${f.initialAccessValidUntil}</dt><dd>${instant(consent.initialAccessValidUntil)}</dd>`,
    html`<dt>${f.finality}</dt><dd>${meaning('finality', consent.finalityCode)}</dd>`,
    html`<dt>${f.objectives}</dt><dd>${consent.objectiveCodes.map((code) => html`${meaning('objective', code)}<br>`)}</dd>`,
    html`<dt>${f.medium}</dt><dd>${meaning('medium', consent.mediumCode)}</dd>`,
    html`<dt>${f.channel}</dt><dd>${meaning('channel', consent.channel)}</dd>`,
    ...(consent.revocation ? [html`<dt>${f.revokedAt}</dt><dd>${instant(consent.revocation.revokedAt)}</dd>`] : []),
    html`<dt>${f.creditExtensions}</dt><dd>${extensions.length === 0 ? t.none : html`<ul>${extensions}</ul>`}</dd>`,
    html`<dt>${f.retentionUntil}</dt><dd>${consent.retentionUntil === null ? t.notYet : instant(consent.retentionUntil)}</dd>`,
  ];
  const historySection = history
    ? html`<h2>${t.history}</h2>
<p>${t.historyText}</p>
<p><a href="${view.base}/consents/${consent.redecConsentId}/verification">${t.verify}</a></p>
${scrolling(
        t.history,
        html`<table><thead><tr>${t.historyColumns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead><tbody>${history.events.map(
          (event) =>
            html`<tr><td>${String(event.position)}</td><td>${instant(event.recordedAt)}</td><td>${event.type}</td><td>${event.actor ?? ''}</td><td class="hash" title="${event.hash}">${event.hash.slice(0, 12)}</td></tr>`,
        )}</tbody></table>`,
      )}`
    : html`<p>${t.historyNeedsAudit}</p>`;
  const evidenceSection = evidence ? evidenceForm(view, consent.redecConsentId, evidence) : html``;
  return page(view, t.consent(consent.internalConsentCode), html`<dl>${rows}</dl>${evidenceSection}${historySection}`, view);
}

/** A page the person may not see, or a consent the tenant does not have. */
export function refusalPage(view: SignedInView, refusal: 'not_found' | 'forbidden'): string {
  const t = textOf(view.language);
  const [title, text] = refusal === 'not_found' ? [t.notFound, t.notFoundText] : [t.forbidden, t.forbiddenText];
  return page(view, title, html`<p>${text}</p><p><a href="${view.base}">${t.backToConsole}</a></p>`, view);
}

/** The overdue notices after `afterBankingDays`, a page at a time, with the whole list as CSV. */
/** `canRecord`: the person's role records notice evidence, so each row links to its consent's form. */
export function overdueNoticesPage(view: SignedInView, afterBankingDays: number, listed: { items: readonly OverdueNotification[]; nextCursor: string | null }, canRecord: boolean): string {
  const t = textOf(view.language);
  const list = `${view.base}/notices/overdue`;
  const days = String(afterBankingDays);
  const rows = listed.items.map(
    (notice) =>
      html`<tr><td><a href="${view.base}/consents/${notice.redecConsentId}">${notice.internalConsentCode}</a></td><td>${t.reasons[notice.reason]}</td><td>${instant(notice.actionAt)}</td><td>${instant(notice.dueAt)}</td>${
        canRecord ? html`<td><a href="${view.base}/consents/${notice.redecConsentId}?reason=${notice.reason}#notice">${t.recordLink}</a></td>` : html``
      }</tr>`,
  );
  const columns = canRecord ? [...t.overdueColumns, t.recordLink] : t.overdueColumns;
  const table =
    listed.items.length === 0
      ? html`<p>${t.noneOverdue}</p>`
      : scrolling(t.overdue, html`<table><thead><tr>${columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`);
  const next = listed.nextCursor === null ? html`` : html`<p><a href="${list}?afterBankingDays=${days}&amp;cursor=${encodeURIComponent(listed.nextCursor)}">${t.nextPage}</a></p>`;
  return page(
    view,
    t.overdue,
    html`<p>${t.overdueText(afterBankingDays)}</p>
<form method="get" action="${list}">
<label for="after-banking-days">${t.afterBankingDays}</label><input id="after-banking-days" name="afterBankingDays" type="number" min="0" max="60" required value="${days}">
<button type="submit">${t.show}</button>
</form>
${table}${next}<p><a href="${list}.csv?afterBankingDays=${days}">${t.downloadCsv}</a></p>`,
    view,
  );
}

/**
 * A consent's verification as the service made it: the result, what it rests
 * on (the checkpoint, the log's key), each fact's leaf, and the bundle to
 * check again elsewhere; `bundle` null where the store keeps no tree.
 */
export function verificationPage(view: SignedInView, internalConsentCode: string, checked: { bundle: AuditBundle; verification: BundleVerification } | null): string {
  const t = textOf(view.language);
  const title = t.verification(internalConsentCode);
  if (!checked) return page(view, title, html`<p class="error" role="alert">${t.logUnavailable}</p>`, view);
  const { bundle, verification } = checked;
  const result = verification.valid
    ? html`<p class="notice" role="status">${t.verified(verification.events, verification.checkpointSize ?? 0)}</p>`
    : html`<p class="error" role="alert">${t.notVerified} ${verification.reason ?? ''}</p>`;
  const rows = bundle.events.map(
    (event) => html`<tr><td>${String(event.leafIndex)}</td><td>${event.type}</td><td>${instant(event.recordedAt)}</td><td class="hash" title="${event.hash}">${event.hash.slice(0, 12)}</td></tr>`,
  );
  const download = `${view.base}/consents/${bundle.redecConsentId}/audit-bundle.json`;
  return page(
    view,
    title,
    html`${result}
<p>${t.verificationText}</p>
${scrolling(t.history, html`<table><thead><tr>${t.bundleColumns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`)}
<h2>${t.checkpoint}</h2>
<pre class="hash">${bundle.checkpoint}</pre>
<h2>${t.verifierKey}</h2>
<p class="hash">${bundle.verifierKey}</p>
<p><a href="${download}">${t.downloadBundle}</a></p>
<p>${t.verifyYourself} <code>ledger audit verify-bundle --file bundle.json --vkey VKEY</code></p>`,
    view,
  );
}

/** What a page says when the console cannot answer: a pause to wait out (503), or a failure. */
export function failurePage(view: ConsoleView, status: number): string {
  const t = textOf(view.language);
  const [title, text] = status === 503 ? [t.unavailable, t.unavailableText] : [t.failed, t.failedText(status)];
  return page(view, title, html`<p>${text}</p><p><a href="${view.base}">${t.backToConsole}</a></p>`);
}
