import { renderTextPdf } from '../pdf/pdf-writer';
import type { PdfBlock } from '../pdf/text-layout';
import { formatInstant } from './instant-format';

/** A code as a person reads it: its meaning, with the code beside it; `meaning` null when nobody has stated one. */
export interface CertificateTerm {
  meaning: string | null;
  code: string;
}

/**
 * Everything a REDEC consent certificate prints, as plain data the grant's
 * facts fill in (names follow the `ConsentGranted` event and the published
 * configuration), with the meanings of its codes as the bank's presentation
 * stated them when the consent was recorded. It holds only what may be
 * printed: identifiers arrive already masked, never in clear.
 */
export interface ConsentCertificateFacts {
  /** The bank as it presented itself when the consent was recorded. */
  bank: { displayName: string };
  /** The data subject's name as the bank chose to show it at capture; absent when it sent none. */
  dataSubjectName?: string;
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
  channel: CertificateTerm;
  captureTiming: string;
  regulatoryProfile: string;
  finality: CertificateTerm;
  medium: CertificateTerm;
  objectives: readonly CertificateTerm[];
  /** Each scope's id, and its data category in words. */
  scopes: ReadonlyArray<{ scopeId: string; dataCategory: CertificateTerm }>;
  targets: readonly string[];
  /** The electronic evidence: how the data subject was authenticated, and the authentication's reference. */
  authentication: { method: CertificateTerm; reference: string };
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
 * The consent certificate of an electronic grant, as PDF bytes: first what
 * the person accepted and how, in words they read, then the text they were
 * shown, then a technical annex with the ids and references an auditor
 * matches. A pure function of the facts: rendering the same facts again (a
 * retried job, a rebuild) gives the same bytes and so the same
 * `contentSha256`.
 */
export function renderConsentCertificate(facts: ConsentCertificateFacts): Buffer {
  if (facts.representation) assertMasked(facts.representation.maskedIdentifier);
  return renderTextPdf({
    title: `Certificado de consentimiento ${facts.internalConsentCode}`,
    blocks: certificateBlocks(facts),
    pageFooter: (page, count) => `Certificado de consentimiento · ${facts.bank.displayName} · ${facts.internalConsentCode} · Página ${page} de ${count}`,
  });
}

function certificateBlocks(facts: ConsentCertificateFacts): PdfBlock[] {
  const field = (label: string, value: string): PdfBlock => ({ kind: 'field', label, value });
  const text = (content: string, options: Omit<Extract<PdfBlock, { kind: 'text' }>, 'kind' | 'text'> = {}): PdfBlock => ({
    kind: 'text',
    text: content,
    ...options,
  });
  // A heading keeps its rule and a few lines of what follows on its page: no heading ends a page alone.
  // `keep` is how much must follow it there: more where a heading of its own comes next and keeps its own lines.
  const section = (title: string, keep = 60): PdfBlock[] => [
    text(title, { style: 'bold', size: 12, spaceBefore: 12, keepWithNext: keep }),
    { kind: 'rule' },
  ];
  const { bank, representation } = facts;

  return [
    text('Certificado de consentimiento', { style: 'bold', size: 18 }),
    text(bank.displayName, { style: 'bold', size: 12, spaceBefore: 4 }),
    text('Registro de Deuda Consolidada (REDEC) de la Comisión para el Mercado Financiero', { size: 10, spaceBefore: 2 }),

    ...section('Lo que usted aceptó'),
    ...(facts.dataSubjectName ? [field('Titular', facts.dataSubjectName)] : []),
    text(`Usted autorizó a ${bank.displayName} a consultar su información en el Registro de Deuda Consolidada, en estas condiciones:`, { spaceBefore: 3 }),
    field('Para qué', inWords(facts.finality)),
    field('Objetivos', facts.objectives.map(inWords).join('\n')),
    field('Qué datos', facts.scopes.map((scope) => inWords(scope.dataCategory)).join('\n')),
    field('Quién podrá consultarlos', facts.targets.join('\n')),
    field('Aceptado el', formatInstant(facts.grantedAt, 'grantedAt')),
    field('Consulta inicial hasta', formatInstant(facts.initialAccessValidUntil, 'initialAccessValidUntil')),
    text('Puede revocar este consentimiento cuando quiera, ante la institución.', { size: 9, spaceBefore: 4 }),

    ...section('Cómo lo aceptó'),
    field('Canal', inWords(facts.channel)),
    field('Medio', inWords(facts.medium)),
    // The method's code and the authentication's reference are the annex's: a person reads how they identified themselves.
    field('Se identificó con', facts.authentication.method.meaning ?? `la autenticación de ${bank.displayName}`),
    ...(representation
      ? [
          text(
            `Lo otorgó en su nombre un representante (identificador ${representation.maskedIdentifier}). La representación es afirmada por la institución; ` +
              'el servicio no verifica poderes legales.',
            { spaceBefore: 4 },
          ),
        ]
      : [text('Usted lo otorgó personalmente.', { spaceBefore: 4 })]),

    ...section('El texto que usted leyó', 100),
    text(facts.consentTitle, { style: 'bold', spaceBefore: 8, keepWithNext: 40 }),
    text(facts.consentText, { spaceBefore: 4 }),

    ...section('Anexo técnico'),
    field('ID del consentimiento REDEC', facts.redecConsentId),
    field('Código interno', facts.internalConsentCode),
    field('ID de la acción de otorgamiento', facts.consentActionId),
    field('Plantilla', `${facts.templateKey}, versión ${facts.configurationVersion}`),
    field('Perfil regulatorio', facts.regulatoryProfile),
    field('Registrado', formatInstant(facts.recordedAt, 'recordedAt')),
    field('Canal', facts.channel.code),
    field('Oportunidad de captura', facts.captureTiming),
    field('Código de finalidad', facts.finality.code),
    field('Código de medio', facts.medium.code),
    field('Códigos de objetivo', facts.objectives.map((objective) => objective.code).join(', ')),
    ...facts.scopes.map((scope) => field(`Alcance ${scope.scopeId}`, `Categoría de datos: ${scope.dataCategory.code}`)),
    field('Método de autenticación', facts.authentication.method.code),
    field('Referencia de autenticación', facts.authentication.reference),
    field('Sistema de origen', facts.sourceSystem),
    field('Referencia de origen', facts.sourceReference),
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
    ...(representation
      ? [
          field('Representación', representation.type),
          field('Identificador del representante', representation.maskedIdentifier),
          field('Fundamento de la autoridad', representation.authorityBasis),
          field('Referencia de la autoridad', representation.authorityReference),
          field('Autoridad afirmada el', formatInstant(representation.assertedAt, 'representation.assertedAt')),
        ]
      : []),

    { kind: 'rule' },
    text(
      'Este certificado se deriva de forma determinista de los hechos registrados del consentimiento: ' +
        'los mismos hechos producen exactamente los mismos bytes. Su huella SHA-256 es el hash del artefacto ' +
        '(contentSha256) con el que el servicio lo almacena y lo entrega en la descarga.',
      { size: 8, spaceBefore: 4 },
    ),
  ];
}

/** The meaning, then the code in parentheses; the code alone only where nobody stated a meaning (a consent recorded before its bank did). */
function inWords({ meaning, code }: CertificateTerm): string {
  return meaning === null ? `Código ${code}` : `${meaning} (código ${code})`;
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
