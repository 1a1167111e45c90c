/**
 * Advance widths (1/1000 em) of the standard Helvetica and Helvetica-Bold,
 * from Adobe's Core 14 AFM files (version 002.000), indexed by WinAnsi code
 * from 0x20. The viewer supplies the fonts; these numbers are only how the
 * layout knows where a line is full, so they must be the fonts' own.
 *
 * Two entries differ from a naive AFM lookup: 0xA0 (no-break space) and 0xAD
 * (soft hyphen) are drawn with the `space` and `hyphen` glyphs in
 * WinAnsiEncoding, so they take those widths. The codes WinAnsi leaves
 * undefined (0x7F, 0x81, 0x8D, 0x8F, 0x90, 0x9D) are 0; the encoder never
 * produces them.
 */
const FIRST_CODE = 0x20;

// prettier-ignore
const HELVETICA: readonly number[] = [
  /* 0x20 */  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  /* 0x30 */  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  /* 0x40 */ 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  /* 0x50 */  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  /* 0x60 */  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  /* 0x70 */  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,   0,
  /* 0x80 */  556,   0, 222, 556, 333,1000, 556, 556, 333,1000, 667, 333,1000,   0, 611,   0,
  /* 0x90 */    0, 222, 222, 333, 333, 350, 556,1000, 333,1000, 500, 333, 944,   0, 500, 667,
  /* 0xA0 */  278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  /* 0xB0 */  400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  /* 0xC0 */  667, 667, 667, 667, 667, 667,1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  /* 0xD0 */  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  /* 0xE0 */  556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
  /* 0xF0 */  556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
];

// prettier-ignore
const HELVETICA_BOLD: readonly number[] = [
  /* 0x20 */  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
  /* 0x30 */  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
  /* 0x40 */  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
  /* 0x50 */  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
  /* 0x60 */  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
  /* 0x70 */  611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,   0,
  /* 0x80 */  556,   0, 278, 556, 500,1000, 556, 556, 333,1000, 667, 333,1000,   0, 611,   0,
  /* 0x90 */    0, 278, 278, 500, 500, 350, 556,1000, 333,1000, 556, 333, 944,   0, 500, 667,
  /* 0xA0 */  278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  /* 0xB0 */  400, 584, 333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  /* 0xC0 */  722, 722, 722, 722, 722, 722,1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  /* 0xD0 */  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  /* 0xE0 */  556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278,
  /* 0xF0 */  611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556,
];

export type FontStyle = 'regular' | 'bold';

/** PDF BaseFont names; both are among the 14 fonts every viewer must provide. */
export const BASE_FONT: Readonly<Record<FontStyle, string>> = { regular: 'Helvetica', bold: 'Helvetica-Bold' };

const WIDTHS: Readonly<Record<FontStyle, readonly number[]>> = { regular: HELVETICA, bold: HELVETICA_BOLD };

/** Width in points of WinAnsi-encoded text set at `size` points. */
export function textWidth(encoded: Uint8Array, style: FontStyle, size: number): number {
  const widths = WIDTHS[style];
  let units = 0;
  for (const code of encoded) units += widths[code - FIRST_CODE] ?? 0;
  return (units * size) / 1000;
}
