import { WIN_ANSI_BY_CODE_POINT } from '../pdf/win-ansi';

/**
 * Reads back what the PDF writer produced, the way a viewer would start: from
 * `startxref` at the end, through the cross-reference table, to the objects.
 * Strict on purpose: any byte out of place throws, so tests that use it fail.
 */
export interface CrossReference {
  /** Where the table starts, as `startxref` says. */
  startxref: number;
  /** The trailer's /Size. */
  size: number;
  /** Byte offset of each in-use object, by object number (index 0 is the free head, -1). */
  offsets: number[];
  trailer: string;
}

export function readCrossReference(pdf: Buffer): CrossReference {
  const text = pdf.toString('latin1');
  const tail = /startxref\n(\d+)\n%%EOF\n$/.exec(text);
  if (!tail) throw new Error('the file does not end with startxref, an offset and %%EOF');
  const startxref = Number(tail[1]);
  const table = /^xref\n0 (\d+)\n/.exec(text.slice(startxref));
  if (!table) throw new Error(`startxref ${startxref} does not point at an xref table`);
  const count = Number(table[1]);
  const entriesStart = startxref + table[0].length;
  const offsets: number[] = [];
  for (let index = 0; index < count; index++) {
    const entry = text.slice(entriesStart + 20 * index, entriesStart + 20 * (index + 1));
    const match = /^(\d{10}) (\d{5}) ([nf]) \n$/.exec(entry);
    if (!match) throw new Error(`xref entry ${index} is not 20 bytes in the required form: ${JSON.stringify(entry)}`);
    if ((index === 0) !== (match[3] === 'f')) throw new Error(`xref entry ${index} has the wrong kind ${match[3]}`);
    offsets.push(index === 0 ? -1 : Number(match[1]));
  }
  const trailerStart = entriesStart + 20 * count;
  const trailer = /^trailer\n(<<.*>>)\nstartxref\n/.exec(text.slice(trailerStart));
  if (!trailer) throw new Error('no trailer right after the xref table');
  const size = /\/Size (\d+)/.exec(trailer[1]);
  return { startxref, size: size ? Number(size[1]) : NaN, offsets, trailer: trailer[1] };
}

/** One `Tj` of a content stream, its text decoded from WinAnsi. */
export interface ShownText {
  page: number;
  font: string;
  size: number;
  x: number;
  y: number;
  text: string;
}

/** The raw content streams, in page order. */
export function contentStreams(pdf: Buffer): Buffer[] {
  const text = pdf.toString('latin1');
  const pageTree = /\/Type \/Pages \/Kids \[([^\]]*)\]/.exec(text);
  if (!pageTree) throw new Error('no page tree');
  const { offsets } = readCrossReference(pdf);
  return [...pageTree[1].matchAll(/(\d+) 0 R/g)].map((kid) => {
    const page = objectText(text, offsets, Number(kid[1]));
    const contents = /\/Contents (\d+) 0 R/.exec(page);
    if (!contents) throw new Error(`page object ${kid[1]} has no /Contents`);
    const number = Number(contents[1]);
    const start = offsets[number];
    const header = new RegExp(`^${number} 0 obj\\n<< /Length (\\d+) >>\\nstream\\n`).exec(text.slice(start));
    if (!header) throw new Error(`object ${number} is not a stream with a direct /Length`);
    const dataStart = start + header[0].length;
    const dataEnd = dataStart + Number(header[1]);
    if (text.slice(dataEnd, dataEnd + 10) !== '\nendstream') throw new Error(`object ${number}: /Length does not end at endstream`);
    return pdf.subarray(dataStart, dataEnd);
  });
}

/** Every string drawn, page by page, top to bottom as written. */
export function shownTexts(pdf: Buffer): ShownText[] {
  const shown: ShownText[] = [];
  contentStreams(pdf).forEach((stream, index) => {
    const operators = /BT \/(F\d) ([\d.]+) Tf ([\d.]+) ([\d.]+) Td \(((?:\\[\s\S]|[^\\()])*)\) Tj ET/g;
    for (const match of stream.toString('latin1').matchAll(operators)) {
      shown.push({
        page: index + 1,
        font: match[1],
        size: Number(match[2]),
        x: Number(match[3]),
        y: Number(match[4]),
        text: decodeWinAnsi(unescapeLiteral(Buffer.from(match[5], 'latin1'))),
      });
    }
  });
  return shown;
}

/** All drawn text of the document as lines joined by `\n`, for assertions on content. */
export function documentText(pdf: Buffer): string {
  return shownTexts(pdf)
    .map((shown) => shown.text)
    .join('\n');
}

const CODE_POINT_BY_WIN_ANSI = new Map([...WIN_ANSI_BY_CODE_POINT].map(([codePoint, code]) => [code, codePoint]));

export function decodeWinAnsi(bytes: Uint8Array): string {
  return String.fromCodePoint(
    ...Array.from(bytes, (code) => {
      const codePoint = CODE_POINT_BY_WIN_ANSI.get(code);
      if (codePoint === undefined) throw new Error(`byte 0x${code.toString(16)} is not in WinAnsiEncoding`);
      return codePoint;
    }),
  );
}

function unescapeLiteral(escaped: Buffer): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < escaped.length; index++) {
    if (escaped[index] === 0x5c) index++;
    bytes.push(escaped[index]);
  }
  return Buffer.from(bytes);
}

function objectText(text: string, offsets: readonly number[], number: number): string {
  const start = offsets[number];
  if (start === undefined || !text.startsWith(`${number} 0 obj\n`, start)) throw new Error(`object ${number} is not at its xref offset`);
  return text.slice(start, text.indexOf('\nendobj\n', start));
}
