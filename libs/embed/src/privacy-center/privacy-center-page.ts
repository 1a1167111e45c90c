import type { ConsentStatus, ReadableTerms, ReportedAccess, ReportedNotice, ReportedRedecConsent, ReportedRightsRequest, RightsRequestKind, SubjectRecords, ReportedGeneralConsent } from '@ledger/redec';
import { Markup, PageBank, html, htmlDocument, list, messagePage, readable, santiagoTime } from '../page/page-html';
import type { RevocationOutcome } from './privacy-center-session';

/** What the page says after an action, at the top of the page the action leads back to. */
export type PrivacyCenterNotice = RevocationOutcome | 'already_revoked' | 'revocation_not_accepted' | 'confirmation_required' | 'request_filed' | 'refused';

/** The notices a redirect may name, so an address cannot put words of its own on the page. */
export const PRIVACY_CENTER_NOTICES: readonly PrivacyCenterNotice[] = [
  'revoked',
  'revocation_kept',
  'already_revoked',
  'revocation_not_accepted',
  'confirmation_required',
  'request_filed',
  'refused',
];

export interface PrivacyCenterView {
  bank: PageBank;
  /** What the ledger holds about the person now. */
  records: SubjectRecords;
  /** What the bank's codes mean (decision 0075). */
  terms: ReadableTerms;
  /** The paths the page's forms post to. */
  revokeAction: string;
  requestAction: string;
  endAction: string;
  csrf: string;
  notice: PrivacyCenterNotice | null;
  /** The bank's page to go back to; null for none. */
  returnUrl: string | null;
  expiresAt: number;
  /** The kinds of request the person may file. */
  requestKinds: readonly RightsRequestKind[];
}

/** Every code the center shows a person for these records, by kind: each consent's purpose and objectives, and each access's objective. */
export function codesShownBy(records: SubjectRecords): Array<{ kind: 'finality' | 'objective'; code: string }> {
  return records.redecConsents.flatMap(({ representation, accesses }) => [
    { kind: 'finality' as const, code: representation.finalityCode },
    ...[...representation.objectiveCodes, ...accesses.map((access) => access.objectiveCode)].map((code) => ({ kind: 'objective' as const, code })),
  ]);
}

/** The form fields of a revocation. */
export const REVOKE_FIELDS = { consentKind: 'consentKind', consentId: 'consentId', confirm: 'confirm' } as const;
/** The form fields of a request. */
export const REQUEST_FIELDS = { kind: 'kind', description: 'description' } as const;
/** The longest description the page takes, as the API does. */
export const REQUEST_DESCRIPTION_MAX = 2000;

const NOTICES: Record<PrivacyCenterNotice, { text: string; role: 'status' | 'alert' }> = {
  revoked: { text: 'Registramos la revocación. Desde ahora su banco no puede consultar su deuda con ese consentimiento.', role: 'status' },
  revocation_kept: {
    text: 'Registramos la revocación, pero ese consentimiento respalda un crédito que usted tiene vigente: mientras el crédito siga vigente el banco puede seguir consultando para administrarlo, y la revocación tendrá efecto cuando termine.',
    role: 'status',
  },
  already_revoked: { text: 'Ese consentimiento ya estaba revocado. No se registró nada nuevo.', role: 'status' },
  revocation_not_accepted: { text: 'No podemos registrar esa revocación por este medio. Comuníquese con su banco para revocarlo.', role: 'alert' },
  confirmation_required: { text: 'Para revocar, marque la casilla de confirmación del consentimiento y vuelva a presionar «Revocar».', role: 'alert' },
  request_filed: { text: 'Recibimos su solicitud. Abajo puede ver su estado y el plazo de respuesta.', role: 'status' },
  refused: { text: 'No pudimos verificar que la acción viniera de esta página, por lo que no se registró nada. Vuelva a intentarlo desde aquí.', role: 'alert' },
};

const REDEC_STATUS: Record<ConsentStatus, string> = {
  granted: 'Vigente',
  extended: 'Vigente por un crédito en curso',
  revoked: 'Revocado',
  expired: 'Vencido',
};

const DENY_REASONS: Record<string, string> = {
  redec_consent_not_found: 'no había un consentimiento',
  redec_consent_revoked: 'el consentimiento estaba revocado',
  redec_initial_window_expired: 'el plazo para nuevas consultas había terminado',
  redec_credit_extension_purpose_not_obligation_management: 'el crédito en curso solo permite consultar para administrarlo',
  redec_no_active_extension_for_obligation: 'no había un crédito en curso que la permitiera',
  redec_scope_not_granted: 'usted no autorizó esa consulta',
  redec_data_category_not_granted: 'usted no autorizó consultar esos datos',
  redec_objective_not_granted: 'usted no autorizó ese objetivo',
  data_subject_processing_blocked: 'usted pidió bloquear el tratamiento de sus datos',
};

const OUTCOMES = { accessed: 'el banco consultó el registro', failed: 'la consulta del banco al registro falló', cancelled: 'el banco no hizo la consulta' } as const;

const NOTICE_REASONS = { grant: 'Aviso de que usted otorgó el consentimiento', revoke: 'Aviso de que usted revocó el consentimiento' } as const;
const NOTICE_STATUSES = { sent: 'enviado', delivered: 'entregado', bounced: 'no se pudo entregar' } as const;
/** The usual ways a bank sends a notice; another is shown as the bank named it. */
const NOTICE_CHANNELS: Record<string, string> = { email: 'correo electrónico', sms: 'SMS', push: 'notificación en la aplicación', postal: 'carta', phone: 'teléfono', in_person: 'en persona' };

const REQUEST_KINDS: Record<RightsRequestKind, { name: string; help: string }> = {
  access: { name: 'Acceso', help: 'Saber qué datos suyos tiene el banco y cómo los usa.' },
  rectification: { name: 'Rectificación', help: 'Corregir datos suyos que estén equivocados o incompletos.' },
  suppression: { name: 'Supresión', help: 'Que el banco elimine sus datos cuando ya no corresponda tenerlos.' },
  opposition: { name: 'Oposición', help: 'Oponerse a un uso determinado de sus datos.' },
  portability: { name: 'Portabilidad', help: 'Recibir sus datos en un formato que pueda llevar a otra institución.' },
  blocking: { name: 'Bloqueo', help: 'Suspender temporalmente el uso de sus datos mientras se resuelve otra solicitud.' },
  redec_dispute: { name: 'Reclamo sobre el Registro de Deuda Consolidada', help: 'Objetar los datos que el banco informó al registro.' },
};

const REQUEST_STATUS = { received: 'Recibida', in_analysis: 'En análisis', resolved: 'Respondida', block_lifted: 'Bloqueo levantado' } as const;
const REQUEST_OUTCOMES = { approved: 'aprobada', partially_approved: 'aprobada en parte', rejected: 'rechazada' } as const;

/**
 * The privacy center (decision 0076): what the person consented to, who
 * queried the registry under it and when, the notices the bank recorded,
 * their requests; and two forms, to revoke and to file a request. Every code
 * is shown with its meaning; no internal id is shown.
 */
export function renderPrivacyCenter(view: PrivacyCenterView): string {
  const { records, bank } = view;
  const title = 'Sus consentimientos y solicitudes';
  const notice = view.notice ? html`<p class="notice" role="${NOTICES[view.notice].role}">${NOTICES[view.notice].text}</p>` : [];
  const back = view.returnUrl ? html`<p><a href="${view.returnUrl}">Volver a ${bank.displayName}</a></p>` : [];
  // Ending the session is for a shared computer: the link and cookie open nothing afterwards.
  const end = html`<form method="post" action="${view.endAction}" class="end">
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="decision"><button type="submit" class="decline">Cerrar sesión</button></div>
</form>`;
  const until = santiagoTime(view.expiresAt);
  return htmlDocument(
    title,
    bank,
    html`<h1>${title}</h1>
${notice}<p>Aquí puede ver los consentimientos que otorgó a ${bank.displayName}, cuándo se consultaron sus datos con ellos, revocarlos y presentar solicitudes sobre sus datos personales.</p>
<p class="code">Esta página vence a las ${until.time} del ${until.date} (hora de Santiago).</p>
<section aria-labelledby="redec">
<h2 id="redec">Consultas a su deuda consolidada (REDEC)</h2>
${records.redecConsents.length > 0 ? records.redecConsents.map((consent) => redecConsent(consent, view)) : html`<p>No tiene consentimientos para consultar su deuda consolidada.</p>`}
</section>
<section aria-labelledby="general">
<h2 id="general">Otros consentimientos</h2>
${records.generalConsents.length > 0 ? records.generalConsents.map((consent) => generalConsent(consent, view)) : html`<p>No tiene otros consentimientos.</p>`}
</section>
<section aria-labelledby="requests">
<h2 id="requests">Sus solicitudes</h2>
${records.rightsRequests.length > 0 ? list(records.rightsRequests.map(rightsRequest)) : html`<p>No ha presentado solicitudes.</p>`}
${requestForm(view)}
</section>
${back}${end}`,
  );
}

function redecConsent(consent: ReportedRedecConsent, view: PrivacyCenterView): Markup {
  const { representation } = consent;
  const { terms } = view;
  const meaning = (kind: 'finality' | 'objective', code: string) => readable({ meaning: terms.meaningOf(kind, code), code });
  const revocation = representation.revocation;
  const facts: Markup[] = [
    term('Estado', html`${REDEC_STATUS[representation.status]}`),
    term('Otorgado', html`${day(representation.grantedAt)}`),
    ...(representation.status === 'granted' ? [term('Permite nuevas consultas hasta', html`${day(representation.initialAccessValidUntil)}`)] : []),
    ...(revocation ? [term('Revocado', html`${day(revocation.revokedAt)}${revocation.effective ? '' : ' (tendrá efecto cuando termine el crédito en curso)'}`)] : []),
    term('Para qué', meaning('finality', representation.finalityCode)),
    term('Objetivos', list(representation.objectiveCodes.map((code) => meaning('objective', code)))),
  ];
  return html`<section class="item">
<h3>${consent.consentTitle}</h3>
<dl>${facts}</dl>
<h4>Consultas a su información</h4>
${consent.accesses.length > 0 ? list(consent.accesses.map((access) => accessLine(access, meaning))) : html`<p>Nadie ha consultado su información con este consentimiento.</p>`}
<h4>Avisos que el banco le envió</h4>
${consent.notices.length > 0 ? list(consent.notices.map(noticeLine)) : html`<p>El banco no ha registrado avisos.</p>`}
${revocation ? [] : revokeForm(view, 'redec', representation.redecConsentId, consent.consentTitle, representation.status === 'extended')}
</section>`;
}

function generalConsent(consent: ReportedGeneralConsent, view: PrivacyCenterView): Markup {
  const facts = [
    term('Estado', html`${consent.revokedAt === null ? 'Vigente' : 'Revocado'}`),
    term('Otorgado', html`${day(consent.grantedAt)}`),
    ...(consent.revokedAt !== null ? [term('Revocado', html`${day(consent.revokedAt)}`)] : []),
  ];
  return html`<section class="item">
<h3>${consent.consentTitle}</h3>
<dl>${facts}</dl>
${consent.revokedAt === null ? revokeForm(view, 'general', consent.consentId, consent.consentTitle, false) : []}
</section>`;
}

function accessLine(access: ReportedAccess, meaning: (kind: 'objective', code: string) => Markup): Markup {
  const at = santiagoTime(access.decidedAt);
  const decision =
    access.status === 'authorized'
      ? html`Consulta autorizada${access.confirmation ? `: ${OUTCOMES[access.confirmation.outcome.kind]}` : ''}.`
      : html`Consulta rechazada: ${DENY_REASONS[access.denyReasonCode ?? ''] ?? 'no cumplía lo que usted autorizó'}. No se consultó el registro.`;
  return html`<strong>${at.date}, ${at.time}</strong> (hora de Santiago). ${decision} Objetivo: ${meaning('objective', access.objectiveCode)}.${access.throughMandatary ? ' La consulta la hizo un mandatario del banco.' : ''}`;
}

function noticeLine(notice: ReportedNotice): Markup {
  const channel = NOTICE_CHANNELS[notice.notificationChannel] ?? notice.notificationChannel;
  return html`${NOTICE_REASONS[notice.notificationReason]}, por ${channel}, el ${day(notice.sentAt)}: ${NOTICE_STATUSES[notice.status]}.`;
}

function rightsRequest(request: ReportedRightsRequest): Markup {
  const outcome = request.outcome ? `, ${REQUEST_OUTCOMES[request.outcome]}` : '';
  const due = request.status === 'received' || request.status === 'in_analysis' ? html` Plazo de respuesta: ${day(request.dueAt)}${request.extended ? ' (plazo extendido)' : ''}.` : [];
  return html`<strong>${REQUEST_KINDS[request.kind].name}</strong>, presentada el ${day(request.receivedAt)}. Estado: ${REQUEST_STATUS[request.status]}${outcome}.${due}`;
}

/** Revoking takes a ticked confirmation, so one stray click does not end a consent; the browser asks for it, the service checks it. */
function revokeForm(view: PrivacyCenterView, kind: 'redec' | 'general', consentId: string, title: string, extended: boolean): Markup {
  const warning = extended
    ? html`<p>Este consentimiento respalda un crédito que usted tiene vigente. Si lo revoca, la revocación quedará registrada y tendrá efecto cuando ese crédito termine.</p>`
    : html`<p>Si lo revoca, el banco ya no podrá usarlo desde ahora. Lo que ya se hizo con él sigue registrado.</p>`;
  return html`<form method="post" action="${view.revokeAction}" class="revoke">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="${REVOKE_FIELDS.consentKind}" value="${kind}">
<input type="hidden" name="${REVOKE_FIELDS.consentId}" value="${consentId}">
<fieldset>
<legend>Revocar «${title}»</legend>
${warning}
<div class="choice"><label><input type="checkbox" name="${REVOKE_FIELDS.confirm}" value="yes" required> Confirmo que quiero revocar este consentimiento</label></div>
<div class="decision"><button type="submit" class="decline">Revocar</button></div>
</fieldset>
</form>`;
}

function requestForm(view: PrivacyCenterView): Markup {
  const options = view.requestKinds.map((kind) => html`<div class="option"><label><input type="radio" name="${REQUEST_FIELDS.kind}" value="${kind}" required> <strong>${REQUEST_KINDS[kind].name}</strong>: ${REQUEST_KINDS[kind].help}</label></div>`);
  return html`<form method="post" action="${view.requestAction}">
<input type="hidden" name="csrf" value="${view.csrf}">
<fieldset>
<legend>Presentar una solicitud</legend>
<p>El banco debe responderle dentro de 30 días corridos; una solicitud de bloqueo, dentro de 2 días hábiles.</p>
${options}
<label for="description">Describa su solicitud (opcional)</label>
<textarea id="description" name="${REQUEST_FIELDS.description}" rows="4" maxlength="${String(REQUEST_DESCRIPTION_MAX)}"></textarea>
<div class="decision"><button type="submit" class="accept">Enviar solicitud</button></div>
</fieldset>
</form>`;
}

function term(name: string, value: Markup): Markup {
  return html`<div><dt>${name}:</dt><dd>${value}</dd></div>`;
}

function day(epochMs: number): string {
  return santiagoTime(epochMs).date;
}

/** What a request to the center is answered with instead of the center. */
export type PrivacyCenterOutcome = 'expired' | 'ended' | 'not_found' | 'link_required';

const OUTCOME_PAGES: Record<PrivacyCenterOutcome, { title: string; message: string }> = {
  expired: {
    title: 'Este enlace venció',
    message: 'Por su seguridad, el enlace a esta página dura poco tiempo. Vuelva a entrar desde el sitio de su banco.',
  },
  ended: {
    title: 'Sesión cerrada',
    message: 'Cerró su sesión: este enlace ya no abre la página. Para volver a entrar, hágalo desde el sitio de su banco.',
  },
  not_found: {
    title: 'Enlace no válido',
    message: 'No encontramos esta página. Revise que el enlace esté completo o vuelva a entrar desde el sitio de su banco.',
  },
  // The address without its token, in a browser that holds no cookie for it.
  link_required: {
    title: 'Entre desde el sitio de su banco',
    message: 'Esta página se abre solo desde el enlace que le entrega su banco. Vuelva a entrar desde su sitio en este navegador; si el problema sigue, permita las cookies de este sitio.',
  },
};

/** `bank`: named only once the page's token was shown, as on the consent page. */
export function renderPrivacyCenterOutcome(outcome: PrivacyCenterOutcome, bank: PageBank | null): string {
  const { title, message } = OUTCOME_PAGES[outcome];
  return messagePage(title, message, bank);
}
