import { textWidth, type FontStyle } from './helvetica-metrics';
import { encodeWinAnsi } from './win-ansi';

/** What a text document is made of, top to bottom. */
export type PdfBlock =
  /** Wrapped text; `\n` starts a new line and an empty line is kept as space. */
  | {
      kind: 'text';
      text: string;
      style?: FontStyle;
      size?: number;
      spaceBefore?: number;
      /** Room (points) that must remain below the block's first line, or the block starts on the next page: a heading is never stranded at the foot of a page. */
      keepWithNext?: number;
    }
  /** A label and its value side by side, each wrapped in its own column. */
  | { kind: 'field'; label: string; value: string }
  /** A thin horizontal line across the text width. */
  | { kind: 'rule' };

export interface PlacedText {
  kind: 'text';
  style: FontStyle;
  size: number;
  /** Baseline start, in points from the page's lower-left corner. */
  x: number;
  y: number;
  /** WinAnsi bytes: layout measures what will be drawn, so a replaced character is measured as its `?`. */
  encoded: Buffer;
}

export interface PlacedRule {
  kind: 'rule';
  x1: number;
  x2: number;
  y: number;
}

export type Placed = PlacedText | PlacedRule;

/** A4 portrait in points, with 2 cm margins. */
export const PAGE_WIDTH = 595.28;
export const PAGE_HEIGHT = 841.89;
const MARGIN = 56.69;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const TOP = PAGE_HEIGHT - MARGIN;
const BOTTOM = MARGIN;
const BODY_SIZE = 10;
const LINE_SPACING = 1.35;
const FIELD_LABEL_WIDTH = 150;
const FIELD_GAP = 12;
const FIELD_SPACE_BEFORE = 3;
const FOOTER_SIZE = 8;
// Below the bottom margin, so a footer never collides with body text.
const FOOTER_BASELINE = 28;
const SPACE = 0x20;

/** Places the blocks on as many pages as they need; a line is never split across pages. */
export function layoutPages(blocks: readonly PdfBlock[]): Placed[][] {
  const pages: Placed[][] = [[]];
  let cursor = TOP;

  // A new page, unless this one is still empty: whatever does not fit an
  // empty page would not fit the next one either, and must not loop.
  const breakPage = () => {
    if (cursor < TOP) {
      pages.push([]);
      cursor = TOP;
    }
  };
  // Space for one line of `height`, on a new page when this one is full.
  const reserve = (height: number): number => {
    if (cursor - height < BOTTOM) breakPage();
    const top = cursor;
    cursor -= height;
    return top;
  };
  // Space above a block separates it from the previous one; at the top of a page there is none.
  const skip = (space: number) => {
    if (cursor < TOP) cursor -= space;
  };
  const place = (item: Placed) => pages[pages.length - 1].push(item);

  for (const block of blocks) {
    switch (block.kind) {
      case 'text': {
        const style = block.style ?? 'regular';
        const size = block.size ?? BODY_SIZE;
        const lines = wrapText(block.text, style, size, CONTENT_WIDTH);
        skip(block.spaceBefore ?? 0);
        if (block.keepWithNext !== undefined && cursor - size * LINE_SPACING - block.keepWithNext < BOTTOM) breakPage();
        for (const line of lines) {
          const top = reserve(size * LINE_SPACING);
          if (line.length > 0) place({ kind: 'text', style, size, x: MARGIN, y: top - size, encoded: line });
        }
        break;
      }
      case 'field': {
        const labelLines = wrapText(block.label, 'bold', BODY_SIZE, FIELD_LABEL_WIDTH);
        const valueLines = wrapText(block.value, 'regular', BODY_SIZE, CONTENT_WIDTH - FIELD_LABEL_WIDTH - FIELD_GAP);
        skip(FIELD_SPACE_BEFORE);
        for (let row = 0; row < Math.max(labelLines.length, valueLines.length); row++) {
          const baseline = reserve(BODY_SIZE * LINE_SPACING) - BODY_SIZE;
          const label = labelLines[row];
          const value = valueLines[row];
          if (label?.length) place({ kind: 'text', style: 'bold', size: BODY_SIZE, x: MARGIN, y: baseline, encoded: label });
          if (value?.length) {
            place({ kind: 'text', style: 'regular', size: BODY_SIZE, x: MARGIN + FIELD_LABEL_WIDTH + FIELD_GAP, y: baseline, encoded: value });
          }
        }
        break;
      }
      case 'rule': {
        const top = reserve(10);
        place({ kind: 'rule', x1: MARGIN, x2: PAGE_WIDTH - MARGIN, y: top - 5 });
        break;
      }
      default: {
        const unknown: never = block;
        throw new Error(`unknown block ${JSON.stringify(unknown)}`);
      }
    }
  }
  return pages;
}

/** The footer line of a page, in the bottom margin. */
export function placeFooter(text: string): PlacedText {
  return { kind: 'text', style: 'regular', size: FOOTER_SIZE, x: MARGIN, y: FOOTER_BASELINE, encoded: encodeWinAnsi(text) };
}

/**
 * Greedy wrapping at spaces, measured with the font's own widths. Runs of
 * spaces collapse (a no-break space, 0xA0, is not a break). A word wider than
 * the line, such as a long reference or a hash, is cut where the line is full
 * rather than overflowing the page.
 */
export function wrapText(text: string, style: FontStyle, size: number, maxWidth: number): Buffer[] {
  const lines: Buffer[] = [];
  const spaceWidth = textWidth(Buffer.of(SPACE), style, size);
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    const words = splitOnSpaces(encodeWinAnsi(paragraph.replace(/\t/g, ' ')));
    if (words.length === 0) {
      lines.push(Buffer.alloc(0));
      continue;
    }
    let line: Buffer[] = [];
    let lineWidth = 0;
    for (const word of words) {
      const wordWidth = textWidth(word, style, size);
      if (line.length > 0 && lineWidth + spaceWidth + wordWidth <= maxWidth) {
        line.push(Buffer.of(SPACE), word);
        lineWidth += spaceWidth + wordWidth;
        continue;
      }
      if (line.length > 0) lines.push(Buffer.concat(line));
      const pieces = breakWord(word, style, size, maxWidth);
      lines.push(...pieces.slice(0, -1));
      const last = pieces[pieces.length - 1];
      line = [last];
      lineWidth = textWidth(last, style, size);
    }
    lines.push(Buffer.concat(line));
  }
  return lines;
}

function splitOnSpaces(encoded: Buffer): Buffer[] {
  const words: Buffer[] = [];
  let start = 0;
  for (let index = 0; index <= encoded.length; index++) {
    if (index === encoded.length || encoded[index] === SPACE) {
      if (index > start) words.push(encoded.subarray(start, index));
      start = index + 1;
    }
  }
  return words;
}

/** Pieces that each fit `maxWidth`; at least one character each, so a narrow column still terminates. */
function breakWord(word: Buffer, style: FontStyle, size: number, maxWidth: number): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  while (start < word.length) {
    let end = start + 1;
    while (end < word.length && textWidth(word.subarray(start, end + 1), style, size) <= maxWidth) end++;
    pieces.push(word.subarray(start, end));
    start = end;
  }
  return pieces;
}
