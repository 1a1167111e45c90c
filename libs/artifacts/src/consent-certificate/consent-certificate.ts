import { renderTextPdf } from '../pdf/pdf-writer';
import type { PdfBlock } from '../pdf/text-layout';
import { formatInstant } from './instant-format';

/**
 * Everything a REDEC consent certificate prints, as plain data the grant's
 * facts fill in (names follow the `ConsentGranted` event and the published
 * configuration). It holds only what may be printed: identifiers arrive
 * already masked, never in clear.
 */
export interface ConsentCertificateFacts {
  /** The tenant's display name, when it has one. */
  institutionName?: string;
  redecConsentId: string;
  internalConsentCode: string;
  /** The id of the grant action, which notification evidence refers to. */
  consentActionId: string;
  templateKey: string;
  configurationVersion: number;
  /** The published configuration's title and text, exactly as presented to the data subject. */
  consentTitle: string;
  consentText: string;
  /** Epoch ms: the regulatory grant instant (`occurredAt` for deferred capture). */
  grantedAt: number;
  /** Epoch ms: when the service received the grant. */
  recordedAt: number;
  /** Epoch ms: end of the initial access window. */
  initialAccessValidUntil: number;
  channel: string;
  captureTiming: string;
  regulatoryProfile: string;
  finalityCode: string;
  mediumCode: string;
  objectiveCodes: readonly string[];
  scopes: ReadonlyArray<{ scopeId: string; dataCategoryCode: string }>;
  targets: readonly string[];
  /** The electronic evidence: how the data subject was authenticated, and the authentication's reference. */
  authentication: { method: string; reference: string };
  sourceSystem: string;
  sourceReference: string;
  /** Absent when the data subject acted personally. */
  representation?: CertificateRepresentation;
  reportableObligation?: { status: string; sourceSystem: string; sourceReference: string };
}

export interface CertificateRepresentation {
  type: string;
  /** A masked or hashed form of the representative's RUT (e.g. `12.***.***-5`); a RUT in clear is refused. */
  maskedIdentifier: string;
  authorityBasis: string;
  authorityReference: string;
  /** Epoch ms. */
  assertedAt: number;
}

export const CONSENT_CERTIFICATE_MEDIA_TYPE = 'application/pdf';

/**
 * The consent certificate of an electronic grant, as PDF bytes. A pure
 * function of the facts: rendering the same facts again (a retried job, a
 * rebuild) gives the same bytes and so the same `contentSha256`.
 */
export function renderConsentCertificate(facts: ConsentCertificateFacts): Buffer {
  if (facts.representation) assertMasked(facts.representation.maskedIdentifier);
  return renderTextPdf({
    title: `Certificado de consentimiento ${facts.internalConsentCode}`,
    blocks: certificateBlocks(facts),
    pageFooter: (page, count) => `Certificado de consentimiento · ${facts.internalConsentCode} · Página ${page} de ${count}`,
  });
}

function certificateBlocks(facts: ConsentCertificateFacts): PdfBlock[] {
  const field = (label: string, value: string): PdfBlock => ({ kind: 'field', label, value });
  const text = (content: string, options: Omit<Extract<PdfBlock, { kind: 'text' }>, 'kind' | 'text'> = {}): PdfBlock => ({
    kind: 'text',
    text: content,
    ...options,
  });
  // A section heading keeps its rule and a few lines of its content on the same page.
  const section = (title: string): PdfBlock[] => [
    text(title, { style: 'bold', size: 12, spaceBefore: 12, keepWithNext: 60 }),
    { kind: 'rule' },
  ];
  const representation = facts.representation;

  return [
    text('Certificado de consentimiento', { style: 'bold', size: 18 }),
    text('Registro de Deuda Consolidada (REDEC)', { size: 11, spaceBefore: 2 }),
    ...(facts.institutionName ? [field('Institución', facts.institutionName)] : []),

    ...section('Identificación'),
    field('ID del consentimiento REDEC', facts.redecConsentId),
    field('Código interno', facts.internalConsentCode),
    field('ID de la acción de otorgamiento', facts.consentActionId),

    ...section('Fechas'),
    field('Otorgado', formatInstant(facts.grantedAt, 'grantedAt')),
    field('Registrado', formatInstant(facts.recordedAt, 'recordedAt')),
    field('Acceso inicial válido hasta', formatInstant(facts.initialAccessValidUntil, 'initialAccessValidUntil')),

    ...section('Captura'),
    field('Canal', described(CHANNELS, facts.channel)),
    field('Oportunidad de captura', described(CAPTURE_TIMINGS, facts.captureTiming)),
    field('Perfil regulatorio', facts.regulatoryProfile),
    field('Sistema de origen', facts.sourceSystem),
    field('Referencia de origen', facts.sourceReference),

    ...section('Finalidad y alcance'),
    field('Código de finalidad', facts.finalityCode),
    field('Código de medio', facts.mediumCode),
    field('Códigos de objetivo', facts.objectiveCodes.join(', ')),
    ...facts.scopes.map((scope) => field(`Alcance ${scope.scopeId}`, `Categoría de datos: ${scope.dataCategoryCode}`)),
    field('Destinatarios', facts.targets.join('\n')),
    ...(facts.reportableObligation
      ? [
          field(
            'Obligación informable',
            `Estado: ${facts.reportableObligation.status}\n` +
              `Sistema: ${facts.reportableObligation.sourceSystem}\n` +
              `Referencia: ${facts.reportableObligation.sourceReference}`,
          ),
        ]
      : []),

    ...section('Evidencia electrónica'),
    field('Método de autenticación', facts.authentication.method),
    field('Referencia de autenticación', facts.authentication.reference),

    ...section('Representación'),
    ...(representation
      ? [
          field('Tipo', representation.type),
          field('Identificador del representante', representation.maskedIdentifier),
          field('Fundamento de la autoridad', representation.authorityBasis),
          field('Referencia de la autoridad', representation.authorityReference),
          field('Autoridad afirmada el', formatInstant(representation.assertedAt, 'representation.assertedAt')),
          // The service keeps the bank's assertion; it never declares the powers verified (docs/reference/grants.md, "Representation").
          text('La representación es afirmada por la institución; el servicio no verifica poderes legales.', { size: 9, spaceBefore: 4 }),
        ]
      : [text('El titular otorgó el consentimiento personalmente.', { spaceBefore: 3 })]),

    ...section('Texto del consentimiento presentado'),
    field('Plantilla', `${facts.templateKey}, versión ${facts.configurationVersion}`),
    text(facts.consentTitle, { style: 'bold', spaceBefore: 8 }),
    text(facts.consentText, { spaceBefore: 4 }),

    { kind: 'rule' },
    text(
      'Este certificado se deriva de forma determinista de los hechos registrados del consentimiento: ' +
        'los mismos hechos producen exactamente los mismos bytes. Su huella SHA-256 es el hash del artefacto ' +
        '(contentSha256) con el que el servicio lo almacena y lo entrega en la descarga.',
      { size: 8, spaceBefore: 4 },
    ),
  ];
}

/** Spanish names for the values docs/reference/allowed-values.md lists; any other value prints as its code alone. */
const CHANNELS: Readonly<Record<string, string>> = { digital: 'Digital', phone: 'Telefónico', in_person: 'Presencial' };
const CAPTURE_TIMINGS: Readonly<Record<string, string>> = {
  deferred_external: 'Captura externa diferida',
  embedded: 'Captura integrada',
};

function described(names: Readonly<Record<string, string>>, code: string): string {
  return Object.hasOwn(names, code) ? `${names[code]} (${code})` : code;
}

/**
 * A last guard, not the masking itself (the grant handler masks): a RUT in
 * clear (7–8 digits and a check digit, with or without dots and hyphen) must
 * never reach a document that is handed out and kept for years.
 */
function assertMasked(identifier: string): void {
  if (/^\d{7,8}[\dkK]$/.test(identifier.replace(/[.\s-]/g, ''))) {
    throw new Error('representation.maskedIdentifier looks like a RUT in clear; pass a masked or hashed form');
  }
}
