import { createHash } from 'node:crypto';
import { BASE_FONT, type FontStyle } from './helvetica-metrics';
import { layoutPages, PAGE_HEIGHT, PAGE_WIDTH, placeFooter, type Placed, type PdfBlock } from './text-layout';

export interface PdfTextDocument {
  /** The document information /Title, which viewers show as the window title. */
  title: string;
  blocks: readonly PdfBlock[];
  /** The line printed at the foot of each page, e.g. "Página 2 de 3". */
  pageFooter?: (pageNumber: number, pageCount: number) => string;
}

/**
 * A PDF 1.4 file of text in the standard Helvetica fonts, written by hand so
 * that its bytes depend on nothing but the document: no clock (no
 * /CreationDate or /ModDate), no random /ID, no compression whose output could
 * change with the zlib version. The same document always gives the same bytes,
 * so the file's SHA-256 identifies the facts it was rendered from.
 *
 * Layout of the file: header, one object per line of the numbering below,
 * the cross-reference table with each object's byte offset, the trailer.
 */
export function renderTextPdf(document: PdfTextDocument): Buffer {
  const pages = layoutPages(document.blocks);
  if (document.pageFooter) {
    const footer = document.pageFooter;
    pages.forEach((items, index) => items.push(placeFooter(footer(index + 1, pages.length))));
  }

  // Fixed numbering: 1 catalog, 2 page tree, 3–4 fonts, 5 information
  // dictionary, then a page object and its content stream for each page.
  const pageObject = (index: number) => 6 + 2 * index;
  const objects: Buffer[] = [
    ascii('<< /Type /Catalog /Pages 2 0 R >>'),
    ascii(`<< /Type /Pages /Kids [${pages.map((_, index) => `${pageObject(index)} 0 R`).join(' ')}] /Count ${pages.length} >>`),
    fontObject('regular'),
    fontObject('bold'),
    ascii(`<< /Title ${textString(document.title)} >>`),
  ];
  pages.forEach((items, index) => {
    objects.push(
      ascii(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(PAGE_WIDTH)} ${num(PAGE_HEIGHT)}]` +
          ` /Resources << /Font << /${FONT_RESOURCE.regular} 3 0 R /${FONT_RESOURCE.bold} 4 0 R >> >>` +
          ` /Contents ${pageObject(index) + 1} 0 R >>`,
      ),
      streamObject(contentStream(items)),
    );
  });
  return serialize(objects);
}

// The second line is a comment of bytes above 0x7F, which tells transfer tools the file is binary (PDF 32000-1, 7.5.2).
const HEADER = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');

const FONT_RESOURCE: Readonly<Record<FontStyle, string>> = { regular: 'F1', bold: 'F2' };

function fontObject(style: FontStyle): Buffer {
  return ascii(`<< /Type /Font /Subtype /Type1 /BaseFont /${BASE_FONT[style]} /Encoding /WinAnsiEncoding >>`);
}

function contentStream(items: readonly Placed[]): Buffer {
  const parts: Buffer[] = [];
  for (const item of items) {
    if (item.kind === 'text') {
      parts.push(
        ascii(`BT /${FONT_RESOURCE[item.style]} ${num(item.size)} Tf ${num(item.x)} ${num(item.y)} Td (`),
        escapeLiteral(item.encoded),
        ascii(') Tj ET\n'),
      );
    } else {
      parts.push(ascii(`0.5 w ${num(item.x1)} ${num(item.y)} m ${num(item.x2)} ${num(item.y)} l S\n`));
    }
  }
  return Buffer.concat(parts);
}

function streamObject(content: Buffer): Buffer {
  return Buffer.concat([ascii(`<< /Length ${content.length} >>\nstream\n`), content, ascii('\nendstream')]);
}

/**
 * The bytes of a literal string: the delimiters and the escape character are
 * escaped; every other byte, accented letters included, is written as is
 * (the encoder never produces a control byte, so no line-end translation can
 * alter the text).
 */
function escapeLiteral(encoded: Buffer): Buffer {
  const bytes: number[] = [];
  for (const byte of encoded) {
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) bytes.push(0x5c);
    bytes.push(byte);
  }
  return Buffer.from(bytes);
}

/** A text string outside content streams (the /Title): UTF-16BE with a byte-order mark, so any character survives. */
function textString(text: string): string {
  return `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

function serialize(objects: readonly Buffer[]): Buffer {
  const chunks: Buffer[] = [HEADER];
  const offsets: number[] = [];
  let offset = HEADER.length;
  objects.forEach((body, index) => {
    offsets.push(offset);
    const chunk = Buffer.concat([ascii(`${index + 1} 0 obj\n`), body, ascii('\nendobj\n')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  // The /ID identifies the document by its content (PDF 32000-1, 14.4): a
  // digest of everything before the cross-reference table, instead of the
  // usual random or time-based value. Both halves are equal: this is the
  // first and only version of the file.
  const id = createHash('sha256').update(Buffer.concat(chunks)).digest('hex').slice(0, 32).toUpperCase();
  // Every entry is exactly 20 bytes, its end of line being a space and a line feed (7.5.4).
  const entries = offsets.map((entry) => `${String(entry).padStart(10, '0')} 00000 n \n`).join('');
  chunks.push(
    ascii(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`),
    ascii(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R /ID [<${id}> <${id}>] >>\n`),
    ascii(`startxref\n${offset}\n%%EOF\n`),
  );
  return Buffer.concat(chunks);
}

/** A number as PDF writes it: at most two decimals, no exponent, no trailing zeros, never `-0`. */
function num(value: number): string {
  const text = value.toFixed(2).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

function ascii(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}
