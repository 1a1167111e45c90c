import { contentStreams, documentText, readCrossReference, shownTexts } from '../testing';
import { textWidth } from './helvetica-metrics';
import { renderTextPdf, type PdfTextDocument } from './pdf-writer';
import { PAGE_WIDTH } from './text-layout';
import { encodeWinAnsi } from './win-ansi';

const MARGIN = 56.69;
const LOREM =
  'El titular autoriza la consulta de su información de deuda consolidada en el registro, ' +
  'para la evaluación de una operación de crédito, según lo dispuesto por la normativa vigente. ';

const sample: PdfTextDocument = {
  title: 'Certificado de consentimiento',
  blocks: [
    { kind: 'text', text: 'Certificado de consentimiento', style: 'bold', size: 18 },
    { kind: 'rule' },
    { kind: 'field', label: 'Código interno', value: 'A1B2C3D4E5F6G7H8J9K0' },
    { kind: 'text', text: 'Texto con acentos: ¿Autoriza? ¡Sí! Ñandú, pingüino.', spaceBefore: 6 },
  ],
  pageFooter: (page, count) => `Página ${page} de ${count}`,
};

describe('renderTextPdf', () => {
  it('gives byte-identical output for the same document, and other bytes and /ID for another', () => {
    const first = renderTextPdf(sample);
    const second = renderTextPdf({ ...sample, blocks: [...sample.blocks] });
    const other = renderTextPdf({ ...sample, blocks: [...sample.blocks, { kind: 'text', text: 'otro hecho' }] });

    expect(first.equals(second)).toBe(true);
    expect(other.equals(first)).toBe(false);
    const id = (pdf: Buffer) => /\/ID \[<([0-9A-F]{32})> <\1>\]/.exec(readCrossReference(pdf).trailer)?.[1];
    expect(id(first)).toMatch(/^[0-9A-F]{32}$/);
    expect(id(other)).not.toBe(id(first));
  });

  it('is a PDF 1.4 file whose xref offsets each point at their object and whose startxref points at the table', () => {
    const pdf = renderTextPdf(sample);
    const text = pdf.toString('latin1');
    const xref = readCrossReference(pdf);

    expect(text.startsWith('%PDF-1.4\n%')).toBe(true);
    expect(text.endsWith(`startxref\n${xref.startxref}\n%%EOF\n`)).toBe(true);
    expect(text.slice(xref.startxref, xref.startxref + 5)).toBe('xref\n');
    expect(xref.size).toBe(xref.offsets.length);
    expect(xref.offsets.length).toBe(8); // free head, catalog, pages, two fonts, info, one page and its content
    xref.offsets.slice(1).forEach((offset, index) => {
      expect(text.slice(offset, offset + `${index + 1} 0 obj\n`.length)).toBe(`${index + 1} 0 obj\n`);
    });
    expect(xref.trailer).toMatch(/\/Root 1 0 R/);
    expect(text).toMatch(/1 0 obj\n<< \/Type \/Catalog \/Pages 2 0 R >>/);
  });

  it('declares the standard fonts with WinAnsiEncoding and carries no date', () => {
    const text = renderTextPdf(sample).toString('latin1');
    expect(text).toContain('/BaseFont /Helvetica /Encoding /WinAnsiEncoding');
    expect(text).toContain('/BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding');
    expect(text).not.toMatch(/CreationDate|ModDate/);
    expect(text).toContain(`/Title <FEFF${Buffer.from('Certificado de consentimiento', 'utf16le').swap16().toString('hex').toUpperCase()}>`);
  });

  it('writes accented text as WinAnsi bytes that decode back to the text', () => {
    const pdf = renderTextPdf(sample);
    const [stream] = contentStreams(pdf);

    expect(stream.includes(Buffer.from('(Texto con acentos: \xbfAutoriza? \xa1S\xed! \xd1and\xfa, ping\xfcino.) Tj', 'latin1'))).toBe(true);
    expect(stream.includes(Buffer.from('C\xf3digo interno', 'latin1'))).toBe(true);
    expect(documentText(pdf)).toContain('Texto con acentos: ¿Autoriza? ¡Sí! Ñandú, pingüino.');
  });

  it('escapes parentheses and backslashes in strings', () => {
    const pdf = renderTextPdf({ title: 't', blocks: [{ kind: 'text', text: 'a (b) \\ c) (' }] });
    const [stream] = contentStreams(pdf);

    expect(stream.toString('latin1')).toContain('(a \\(b\\) \\\\ c\\) \\() Tj');
    expect(documentText(pdf)).toBe('a (b) \\ c) (');
  });

  it('replaces characters outside WinAnsi by ?', () => {
    expect(documentText(renderTextPdf({ title: 't', blocks: [{ kind: 'text', text: 'RUT 😀 漢' }] }))).toBe('RUT ? ?');
  });

  it('wraps long text within the margins, measuring with the font widths', () => {
    const pdf = renderTextPdf({ title: 't', blocks: [{ kind: 'text', text: LOREM.repeat(3) }] });
    const lines = shownTexts(pdf);

    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      expect(line.x).toBe(MARGIN);
      expect(textWidth(encodeWinAnsi(line.text), 'regular', 10)).toBeLessThanOrEqual(PAGE_WIDTH - 2 * MARGIN);
    }
    // A greedy wrap: the next line's first word would not have fitted on the line before.
    for (let index = 0; index + 1 < lines.length; index++) {
      const withNextWord = `${lines[index].text} ${lines[index + 1].text.split(' ')[0]}`;
      expect(textWidth(encodeWinAnsi(withNextWord), 'regular', 10)).toBeGreaterThan(PAGE_WIDTH - 2 * MARGIN);
    }
    expect(lines.map((line) => line.text).join(' ')).toBe(LOREM.repeat(3).trim());
  });

  it('keeps explicit line breaks and blank lines, and cuts a word wider than the line', () => {
    const hash = 'f'.repeat(200);
    const pdf = renderTextPdf({ title: 't', blocks: [{ kind: 'text', text: `uno\n\ndos\r\n${hash}` }] });
    const lines = shownTexts(pdf);

    expect(lines.slice(0, 2).map((line) => line.text)).toEqual(['uno', 'dos']);
    // The blank line still takes its height.
    expect(lines[0].y - lines[1].y).toBeCloseTo(2 * 13.5, 5);
    expect(lines.slice(2).map((line) => line.text).join('')).toBe(hash);
    expect(lines.length).toBeGreaterThan(3);
  });

  it('continues on new pages, each with its footer, and lists every page in the page tree', () => {
    const pdf = renderTextPdf({
      title: 't',
      blocks: Array.from({ length: 40 }, (_, index) => ({ kind: 'text' as const, text: `Párrafo ${index + 1}. ${LOREM}` })),
      pageFooter: (page, count) => `Página ${page} de ${count}`,
    });
    const lines = shownTexts(pdf);
    const pageCount = Number(/\/Count (\d+)/.exec(pdf.toString('latin1'))?.[1]);

    expect(pageCount).toBeGreaterThan(1);
    expect(contentStreams(pdf)).toHaveLength(pageCount);
    for (let page = 1; page <= pageCount; page++) {
      const onPage = lines.filter((line) => line.page === page);
      expect(onPage.at(-1)?.text).toBe(`Página ${page} de ${pageCount}`);
      for (const line of onPage.slice(0, -1)) {
        expect(line.y).toBeGreaterThanOrEqual(MARGIN);
        expect(line.y).toBeLessThanOrEqual(841.89 - MARGIN);
      }
    }
    const body = lines.filter((line) => !line.text.startsWith('Página '));
    expect(body[0].text.startsWith('Párrafo 1.')).toBe(true);
    expect(body.filter((line) => line.text.startsWith('Párrafo ')).map((line) => line.text.split('.')[0])).toEqual(
      Array.from({ length: 40 }, (_, index) => `Párrafo ${index + 1}`),
    );
    // Every object of every page is still where the xref says.
    const xref = readCrossReference(pdf);
    xref.offsets.slice(1).forEach((offset, index) => {
      expect(pdf.toString('latin1', offset, offset + 12).startsWith(`${index + 1} 0 obj\n`)).toBe(true);
    });
  });

  it('starts a text longer than a page right below what precedes it, not on a fresh page', () => {
    const lines = shownTexts(
      renderTextPdf({ title: 't', blocks: [{ kind: 'text', text: 'antes' }, { kind: 'text', text: LOREM.repeat(60) }] }),
    );
    const [before, first] = lines;

    expect(before.text).toBe('antes');
    expect(first).toMatchObject({ page: 1 });
    expect(before.y - first.y).toBeCloseTo(13.5, 5);
    expect(lines.at(-1)?.page).toBeGreaterThan(1);
  });

  it('places a field label and its value side by side on the same baseline', () => {
    const [label, value] = shownTexts(renderTextPdf({ title: 't', blocks: [{ kind: 'field', label: 'Canal', value: 'digital' }] }));
    expect(label).toMatchObject({ font: 'F2', text: 'Canal', x: MARGIN });
    expect(value).toMatchObject({ font: 'F1', text: 'digital', y: label.y });
    expect(value.x).toBeGreaterThan(label.x + 150);
  });
  it('moves a heading to the next page when the room it asks for below it is not left', () => {
    // Enough lines to fill most of the first page, leaving less than 100 points.
    const filler = Array.from({ length: 50 }, (_, index) => ({ kind: 'text' as const, text: `línea ${index + 1}` }));
    const heading = { kind: 'text' as const, text: 'Sección', style: 'bold' as const };
    const kept = shownTexts(renderTextPdf({ title: 't', blocks: [...filler, { ...heading, keepWithNext: 100 }, { kind: 'text', text: 'contenido' }] }));
    const loose = shownTexts(renderTextPdf({ title: 't', blocks: [...filler, heading, { kind: 'text', text: 'contenido' }] }));

    expect(loose.find((line) => line.text === 'Sección')?.page).toBe(1);
    const moved = kept.find((line) => line.text === 'Sección');
    expect(moved?.page).toBe(2);
    expect(moved?.y).toBeCloseTo(841.89 - MARGIN - 10, 2); // the first line of a page
    expect(kept.find((line) => line.text === 'contenido')?.page).toBe(2);
  });
});
