import { PdfBlock, formatInstant, formatSantiagoTime, renderTextPdf } from '@ledger/artifacts';
import { ReportedAccess, ReportedRedecConsent, ReportedRightsRequest, SubjectReport } from './subject-report';

/**
 * The subject's report as a PDF in Spanish, for the data subject to read
 * (decision 0071). A pure function of the report, as the consent
 * certificate is of its facts: the same report always gives the same bytes.
 */
export function renderSubjectReportPdf(report: SubjectReport): Buffer {
  return renderTextPdf({
    title: `Informe de datos personales · solicitud ${report.rightsRequestId}`,
    blocks: reportBlocks(report),
    pageFooter: (page, count) => `Informe de datos personales · datos al ${formatSantiagoTime(report.asOf, 'asOf')} · Página ${page} de ${count}`,
  });
}

const field = (label: string, value: string): PdfBlock => ({ kind: 'field', label, value });
const text = (content: string, options: Omit<Extract<PdfBlock, { kind: 'text' }>, 'kind' | 'text'> = {}): PdfBlock => ({ kind: 'text', text: content, ...options });
// A heading keeps its rule and a few lines of its content on the same page.
const section = (title: string): PdfBlock[] => [text(title, { style: 'bold', size: 12, spaceBefore: 14, keepWithNext: 60 }), { kind: 'rule' }];
const subsection = (title: string): PdfBlock => text(title, { style: 'bold', spaceBefore: 10, keepWithNext: 40 });
const when = (instant: number | null, name: string, none = '—') => (instant === null ? none : formatSantiagoTime(instant, name));

function reportBlocks(report: SubjectReport): PdfBlock[] {
  const { dataSubject } = report;
  return [
    text('Informe de datos personales', { style: 'bold', size: 18 }),
    text(`Respuesta a una solicitud de ${REQUEST_KINDS[report.kind].toLowerCase()} (Ley N° 21.719)`, { size: 11, spaceBefore: 2 }),
    field('Solicitud', report.rightsRequestId),
    field('Datos registrados al', formatInstant(report.asOf, 'asOf')),
    text(
      'Este informe reúne lo que el registro de consentimientos guarda sobre usted: sus consentimientos, cada decisión de acceso ' +
        'al Registro de Deuda Consolidada (REDEC) tomada con ellos y su resultado, los avisos que se le enviaron, las retenciones legales ' +
        'y sus solicitudes. Las fechas se muestran en hora de Chile.',
      { spaceBefore: 8 },
    ),

    ...section('Titular'),
    field('ID de cliente', dataSubject.customerId),
    field('Referencia de la institución', dataSubject.userReference ?? ERASED),
    ...dataSubject.identifiers.map((identifier) =>
      field(`Identificador (${identifier.type})`, `${identifier.value ?? ERASED}${identifier.verification ? `\nVerificado por ${identifier.verification.method} el ${when(identifier.verification.verifiedAt, 'verifiedAt')}` : ''}`),
    ),
    field('Registrado', when(dataSubject.registeredAt, 'registeredAt')),
    ...(dataSubject.erasedAt !== null ? [field('Datos personales eliminados', when(dataSubject.erasedAt, 'erasedAt'))] : []),

    ...section('Consentimientos REDEC'),
    ...(report.redecConsents.length === 0 ? [text('No hay consentimientos REDEC registrados.', { spaceBefore: 3 })] : report.redecConsents.flatMap(redecConsentBlocks)),

    ...section('Otros consentimientos'),
    ...(report.generalConsents.length === 0
      ? [text('No hay otros consentimientos registrados.', { spaceBefore: 3 })]
      : report.generalConsents.map((consent) =>
          field(
            `${consent.consentTitle}`,
            `Plantilla ${consent.templateKey}, versión ${consent.configurationVersion}\nOtorgado: ${when(consent.grantedAt, 'grantedAt')} (${described(CHANNELS, consent.channel)})\n` +
              (consent.revokedAt === null ? 'Vigente' : `Revocado: ${when(consent.revokedAt, 'revokedAt')}`),
          ),
        )),

    ...section('Retenciones legales'),
    ...(report.legalHolds.length === 0
      ? [text('No hay retenciones legales sobre sus datos.', { spaceBefore: 3 })]
      : report.legalHolds.map((hold) =>
          field(`Retención ${hold.reference}`, `${hold.reason}\nDesde: ${when(hold.placedAt, 'placedAt')}\n${hold.releasedAt === null ? 'Vigente' : `Levantada: ${when(hold.releasedAt, 'releasedAt')}`}`),
        )),

    ...section('Sus solicitudes'),
    ...report.rightsRequests.flatMap(rightsRequestBlocks),

    { kind: 'rule' },
    text(
      'Este informe se deriva de forma determinista de los hechos registrados hasta la fecha indicada: ' +
        'los mismos hechos producen exactamente los mismos bytes, y su huella SHA-256 queda registrada con la respuesta a su solicitud.',
      { size: 8, spaceBefore: 4 },
    ),
  ];
}

function redecConsentBlocks(consent: ReportedRedecConsent): PdfBlock[] {
  const { representation } = consent;
  const { revocation } = representation;
  return [
    subsection(`${consent.consentTitle} (${representation.internalConsentCode})`),
    field('ID del consentimiento', representation.redecConsentId),
    field('Estado', described(CONSENT_STATUSES, representation.status)),
    field('Fecha de otorgamiento', `${when(representation.grantedAt, 'grantedAt')} (${described(CHANNELS, representation.channel)})`),
    field('Acceso inicial válido hasta', when(representation.initialAccessValidUntil, 'initialAccessValidUntil')),
    field('Códigos de finalidad y objetivos', `${representation.finalityCode}; ${representation.objectiveCodes.join(', ')}`),
    ...(revocation ? [field('Revocación', `${when(revocation.revokedAt, 'revokedAt')}${revocation.effective ? '' : ' (sin efecto)'}`)] : []),
    ...representation.creditExtensions.map((extension) =>
      field('Extensión por crédito', `${extension.creditOperationReference}: desde ${when(extension.creditGrantedAt, 'creditGrantedAt')}${extension.endedAt === null ? '' : `, terminada ${when(extension.endedAt, 'endedAt')}`}`),
    ),
    field(
      'Conservación',
      representation.retentionUntil === null ? 'Mientras el consentimiento esté vigente' : `Hasta ${when(representation.retentionUntil, 'retentionUntil')} (${described(RETENTION_BASES, representation.retentionBasis ?? '')})`,
    ),
    field('Accesos al REDEC', consent.accesses.length === 0 ? 'Ninguno' : consent.accesses.map(accessLine).join('\n')),
    field(
      'Avisos enviados',
      consent.notices.length === 0
        ? 'Ninguno'
        : consent.notices.map((notice) => `${when(notice.sentAt, 'sentAt')}: aviso de ${notice.notificationReason === 'grant' ? 'otorgamiento' : 'revocación'} por ${notice.notificationChannel} (${described(NOTICE_STATUSES, notice.status)})`).join('\n'),
    ),
  ];
}

function accessLine(access: ReportedAccess): string {
  const decision = access.status === 'authorized' ? 'Autorizado' : `Denegado (${access.denyReasonCode})`;
  const confirmation = access.confirmation;
  const outcome =
    confirmation === null
      ? access.status === 'authorized'
        ? 'sin resultado informado'
        : null
      : confirmation.outcome.kind === 'accessed'
        ? `consultado el ${when(confirmation.outcome.accessedAt, 'accessedAt')}`
        : described(ACCESS_OUTCOMES, confirmation.outcome.kind).toLowerCase();
  const mandatary = access.throughMandatary ? ', por un mandatario' : '';
  return `${when(access.decidedAt, 'decidedAt')}: ${decision}, categoría ${access.dataCategoryCode}, objetivo ${access.objectiveCode}${mandatary}${outcome ? `; ${outcome}` : ''}`;
}

function rightsRequestBlocks(request: ReportedRightsRequest): PdfBlock[] {
  return [
    subsection(`${REQUEST_KINDS[request.kind]} · ${request.rightsRequestId}`),
    field('Estado', `${described(REQUEST_STATUSES, request.status)}${request.outcome ? `: ${described(OUTCOMES, request.outcome)}` : ''}`),
    field('Fecha de recepción', when(request.receivedAt, 'receivedAt')),
    field('Plazo de respuesta', `${when(request.dueAt, 'dueAt')}${request.extended ? ' (prorrogado)' : ''}`),
    ...(request.complaintDeadline !== null ? [field('Plazo para reclamar ante la Agencia', when(request.complaintDeadline, 'complaintDeadline'))] : []),
    ...(request.description !== null ? [field('Su solicitud', request.description)] : []),
    ...request.rectifications.map((rectification) =>
      field('Corrección', `${when(rectification.rectifiedAt, 'rectifiedAt')}: ${rectification.description ?? ERASED}\n${rectifiedRecord(rectification.record)}`),
    ),
    field('Historial', request.history.map((step) => `${when(step.occurredAt, 'occurredAt')}: ${described(STEPS, step.step)}`).join('\n')),
  ];
}

function rectifiedRecord(record: ReportedRightsRequest['rectifications'][number]['record']): string {
  switch (record.kind) {
    case 'redec_consent':
      return `En el consentimiento ${record.redecConsentId}`;
    case 'customer':
      return 'En su registro de cliente';
    case 'bank_record':
      return `En el registro ${record.sourceReference} de ${record.sourceSystem}`;
  }
}

const ERASED = '(eliminado)';

const CHANNELS: Readonly<Record<string, string>> = { digital: 'digital', phone: 'telefónico', in_person: 'presencial' };
const CONSENT_STATUSES: Readonly<Record<string, string>> = { granted: 'Otorgado', extended: 'Vigente por extensión de crédito', revoked: 'Revocado', expired: 'Expirado' };
const RETENTION_BASES: Readonly<Record<string, string>> = {
  revocation: 'desde la revocación',
  loss_of_validity: 'desde la pérdida de vigencia',
  obligation_extinguished: 'desde la extinción de la obligación',
  acceleration_executed: 'desde la aceleración de la obligación',
  superseded_by_new_obligation: 'desde su reemplazo por una nueva obligación',
};
const NOTICE_STATUSES: Readonly<Record<string, string>> = { sent: 'enviado', delivered: 'entregado', bounced: 'rebotado' };
const ACCESS_OUTCOMES: Readonly<Record<string, string>> = { failed: 'Consulta fallida', cancelled: 'Consulta cancelada' };
const REQUEST_KINDS: Readonly<Record<SubjectReport['kind'], string>> = {
  access: 'Acceso',
  rectification: 'Rectificación',
  suppression: 'Supresión',
  opposition: 'Oposición',
  portability: 'Portabilidad',
  blocking: 'Bloqueo',
  redec_dispute: 'Disputa REDEC',
};
const REQUEST_STATUSES: Readonly<Record<string, string>> = { received: 'Recibida', in_analysis: 'En análisis', resolved: 'Respondida', block_lifted: 'Bloqueo levantado' };
const OUTCOMES: Readonly<Record<string, string>> = { approved: 'aprobada', partially_approved: 'aprobada en parte', rejected: 'rechazada' };
const STEPS: Readonly<Record<string, string>> = { received: 'recibida', in_analysis: 'en análisis', extended: 'plazo prorrogado', resolved: 'respondida', block_lifted: 'bloqueo levantado', rectified: 'dato corregido' };

/** The Spanish name of a code; a code without one prints as itself, so nothing the ledger records is hidden. */
function described(names: Readonly<Record<string, string>>, code: string): string {
  return Object.hasOwn(names, code) ? names[code] : code;
}
