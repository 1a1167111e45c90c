import { createHash } from 'node:crypto';
import { contentStreams, documentText, readCrossReference, shownTexts } from '../testing';
import { renderConsentCertificate, type ConsentCertificateFacts } from './consent-certificate';

// 2025-03-14T15:04:05.678Z is 12:04:05 in Santiago (summer time, UTC-03:00).
const GRANTED_AT = Date.UTC(2025, 2, 14, 15, 4, 5, 678);

const facts: ConsentCertificateFacts = {
  bank: { displayName: 'Banco Ejemplo S.A.' },
  redecConsentId: 'rc_01JPB7Q4ZK5X2N8V3M6T9W1Y0A',
  internalConsentCode: 'K7Q2M9X4T1B8N5V3C6Z0',
  consentActionId: 'ca_01JPB7Q4ZKACTION000000001',
  templateKey: 'redec-credit-evaluation',
  configurationVersion: 3,
  consentTitle: 'Consulta al Registro de Deuda Consolidada',
  consentText:
    'Autorizo a Banco Ejemplo S.A. a consultar mi información en el Registro de Deuda Consolidada ' +
    'para evaluar mi solicitud de crédito. ¿Entiendo que puedo revocar este consentimiento? Sí, en cualquier momento.\n\n' +
    'Declaro haber leído y aceptado estas condiciones (versión vigente).',
  grantedAt: GRANTED_AT,
  recordedAt: GRANTED_AT + 2_500,
  initialAccessValidUntil: Date.UTC(2025, 3, 5, 2, 59, 59, 999),
  channel: { meaning: 'En línea', code: 'digital' },
  captureTiming: 'deferred_external',
  regulatoryProfile: 'baseline',
  finality: { meaning: 'Evaluar si le otorgamos un crédito', code: '2' },
  medium: { meaning: 'Documento electrónico', code: 'ELEC' },
  objectives: [
    { meaning: 'Evaluar una solicitud de crédito nueva', code: '02' },
    { meaning: 'Evaluar la renegociación de un crédito vigente', code: '03' },
  ],
  scopes: [{ scopeId: 'redec-debt', dataCategory: { meaning: 'Su información de deudas en el REDEC', code: 'redec.consolidated_debt_record' } }],
  targets: ['Banco Ejemplo S.A.'],
  authentication: { method: { meaning: 'ClaveÚnica', code: 'clave_unica' }, reference: 'auth-7f3a9c' },
  sourceSystem: 'web-onboarding',
  sourceReference: 'solicitud-2025-000123',
};

const representation = {
  type: 'representative',
  maskedIdentifier: '12.***.***-5',
  authorityBasis: 'reporter_asserted_representation',
  authorityReference: 'poder-notarial-4471',
  assertedAt: Date.UTC(2025, 2, 10, 13, 0, 0, 0),
};

describe('renderConsentCertificate', () => {
  it('gives the same bytes, and so the same SHA-256, for the same facts', () => {
    const first = renderConsentCertificate(facts);
    const second = renderConsentCertificate(structuredClone(facts));
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

    expect(first.equals(second)).toBe(true);
    expect(sha256(first)).toBe(sha256(second));
    expect(renderConsentCertificate({ ...facts, sourceReference: 'otra' }).equals(first)).toBe(false);
  });

  it('is a well-formed PDF whose objects are where the cross-reference table says', () => {
    const pdf = renderConsentCertificate(facts);
    const xref = readCrossReference(pdf);
    xref.offsets.slice(1).forEach((offset, index) => {
      expect(pdf.toString('latin1', offset, offset + 12).startsWith(`${index + 1} 0 obj\n`)).toBe(true);
    });
    expect(pdf.toString('latin1')).not.toMatch(/CreationDate|ModDate/);
  });

  it('says first, in words, what the person accepted and how, each code after its meaning', () => {
    const text = documentText(renderConsentCertificate(facts));
    const words = text.replace(/\s+/g, ' ');
    for (const expected of [
      'Certificado de consentimiento Banco Ejemplo S.A.',
      'Usted autorizó a Banco Ejemplo S.A. a consultar su información en el Registro de Deuda Consolidada',
      'Para qué Evaluar si le otorgamos un crédito (código 2)',
      'Objetivos Evaluar una solicitud de crédito nueva (código 02) Evaluar la renegociación de un crédito vigente (código 03)',
      'Qué datos Su información de deudas en el REDEC (código redec.consolidated_debt_record)',
      'Quién podrá consultarlos Banco Ejemplo S.A.',
      'Canal En línea (código digital)',
      'Medio Documento electrónico (código ELEC)',
      'Se identificó con ClaveÚnica',
      'Usted lo otorgó personalmente.',
    ]) {
      expect(words).toContain(expected);
    }
    // The consent text is wrapped into lines; its words follow one another unchanged.
    expect(words).toContain('para evaluar mi solicitud de crédito. ¿Entiendo que puedo revocar este consentimiento? Sí, en cualquier momento.');
    expect(words).toContain('Declaro haber leído y aceptado estas condiciones (versión vigente).');
  });

  it('names the data subject as the bank chose to, and no one when it did not', () => {
    expect(documentText(renderConsentCertificate({ ...facts, dataSubjectName: 'María José Pérez Soto' })).replace(/\s+/g, ' ')).toContain('Lo que usted aceptó Titular María José Pérez Soto');
    expect(documentText(renderConsentCertificate(facts))).not.toContain('Titular');
  });

  it('keeps every internal id and reference for the technical annex, after what the person reads', () => {
    const text = documentText(renderConsentCertificate({ ...facts, representation }));
    const annex = text.indexOf('Anexo técnico');
    expect(annex).toBeGreaterThan(text.indexOf('El texto que usted leyó'));
    for (const internal of [
      'rc_01JPB7Q4ZK5X2N8V3M6T9W1Y0A',
      'ca_01JPB7Q4ZKACTION000000001',
      'redec-credit-evaluation, versión 3',
      'baseline',
      'deferred_external',
      'clave_unica',
      'auth-7f3a9c',
      'web-onboarding',
      'solicitud-2025-000123',
      'reporter_asserted_representation',
      'poder-notarial-4471',
      'Categoría de datos: redec.consolidated_debt_record',
    ]) {
      expect({ internal, at: text.indexOf(internal) > annex }).toEqual({ internal, at: true });
    }
  });

  it('shows a code alone, never an empty meaning, where nobody stated one', () => {
    const text = documentText(renderConsentCertificate({ ...facts, finality: { meaning: null, code: '7' }, authentication: { method: { meaning: null, code: 'otp_sms' }, reference: 'r' } }));
    expect(text.replace(/\s+/g, ' ')).toContain('Para qué Código 7');
    expect(text.replace(/\s+/g, ' ')).toContain('Se identificó con la autenticación de Banco Ejemplo S.A.');
  });

  it('never leaves a heading at the foot of a page, wherever the content before it ends', () => {
    // Each extra target moves everything after it down a line, and each extra paragraph of the text moves the annex: together they put every heading at every height of a page.
    const headings = new Set(['Lo que usted aceptó', 'Cómo lo aceptó', 'El texto que usted leyó', 'Anexo técnico', facts.consentTitle]);
    const strandedHeadings: string[] = [];
    for (let targets = 1; targets <= 48; targets++) {
      for (let paragraphs = 1; paragraphs <= 64; paragraphs += 9) {
        const pdf = renderConsentCertificate({
          ...facts,
          targets: Array.from({ length: targets }, (_, i) => `Entidad ${i + 1}`),
          consentText: Array.from({ length: paragraphs }, (_, i) => `Párrafo ${i + 1} del texto del consentimiento.`).join('\n'),
        });
        const shown = shownTexts(pdf).filter((line) => !line.text.startsWith('Certificado de consentimiento ·'));
        const pages = Math.max(...shown.map((line) => line.page));
        for (let page = 1; page < pages; page++) {
          const onPage = shown.filter((line) => line.page === page);
          const last = onPage[onPage.length - 1].text;
          if (headings.has(last)) strandedHeadings.push(`${targets} targets, ${paragraphs} paragraphs: "${last}" ends page ${page}`);
        }
      }
    }
    expect(strandedHeadings).toEqual([]);
  });

  it('prints grantedAt and recordedAt in ISO-8601 UTC and in Santiago time with the offset of that instant', () => {
    const text = documentText(renderConsentCertificate(facts));

    expect(text).toContain('2025-03-14T15:04:05.678Z (UTC)\n2025-03-14 12:04:05 hora de Chile (America/Santiago, UTC-03:00)');
    expect(text).toContain('2025-03-14T15:04:08.178Z (UTC)\n2025-03-14 12:04:08 hora de Chile (America/Santiago, UTC-03:00)');
    expect(text).toContain('2025-04-05T02:59:59.999Z (UTC)\n2025-04-04 23:59:59 hora de Chile (America/Santiago, UTC-03:00)');
  });

  it('takes the Santiago offset in force at each instant, across the end of summer time', () => {
    // Summer time ended at 2025-04-06T03:00:00Z: local clocks went back from 00:00 to 23:00 of 5 April.
    const justBefore = documentText(renderConsentCertificate({ ...facts, grantedAt: Date.UTC(2025, 3, 6, 2, 59, 59, 0) }));
    const justAfter = documentText(renderConsentCertificate({ ...facts, grantedAt: Date.UTC(2025, 3, 6, 3, 0, 0, 0) }));

    expect(justBefore).toContain('2025-04-05 23:59:59 hora de Chile (America/Santiago, UTC-03:00)');
    expect(justAfter).toContain('2025-04-05 23:00:00 hora de Chile (America/Santiago, UTC-04:00)');
  });

  it('prints a representation with the masked identifier only, and says it is asserted, not verified', () => {
    const text = documentText(renderConsentCertificate({ ...facts, representation }));

    expect(text.replace(/\s+/g, ' ')).toContain('Lo otorgó en su nombre un representante (identificador 12.***.***-5)');
    expect(text).toContain('poder-notarial-4471');
    expect(text).toContain('2025-03-10 10:00:00 hora de Chile');
    expect(text.replace(/\s+/g, ' ')).toContain('el servicio no verifica poderes legales');
    expect(text).not.toContain('personalmente');
  });

  it.each(['12.345.678-5', '12345678-5', '123456785', '7.654.321-K'])('refuses a RUT in clear (%s) as the representative identifier', (rut) => {
    expect(() => renderConsentCertificate({ ...facts, representation: { ...representation, maskedIdentifier: rut } })).toThrow(
      'looks like a RUT in clear',
    );
  });

  it('writes the accents as WinAnsi bytes in the content stream', () => {
    const [firstPage] = contentStreams(renderConsentCertificate(facts));
    expect(firstPage.includes(Buffer.from('(Lo que usted acept\xf3) Tj', 'latin1'))).toBe(true);
    expect(firstPage.includes(Buffer.from('(Qu\xe9 datos) Tj', 'latin1'))).toBe(true);
  });

  it('runs onto further pages for a long consent text, numbering every page', () => {
    const long = { ...facts, consentText: `${facts.consentText}\n`.repeat(60) };
    const pdf = renderConsentCertificate(long);
    const pages = contentStreams(pdf).length;

    expect(pages).toBeGreaterThan(1);
    expect(documentText(pdf)).toContain(`Certificado de consentimiento · Banco Ejemplo S.A. · K7Q2M9X4T1B8N5V3C6Z0 · Página ${pages} de ${pages}`);
  });

  it('refuses an instant that is not epoch milliseconds', () => {
    expect(() => renderConsentCertificate({ ...facts, recordedAt: Number.NaN })).toThrow('recordedAt must be an integer of epoch milliseconds');
  });
});
