/**
 * WinAnsiEncoding (PDF 32000-1, Annex D; Windows code page 1252): the one
 * single-byte encoding every viewer applies to the standard Type1 fonts, and
 * it covers Spanish (á é í ó ú ü ñ Ñ ¿ ¡). Codes 0x20–0x7E and 0xA0–0xFF are
 * the Unicode code points of the same value; 0x80–0x9F hold the characters below.
 */
const HIGH_CONTROL_RANGE: ReadonlyArray<readonly [codePoint: number, code: number]> = [
  [0x20ac, 0x80], // €
  [0x201a, 0x82], // ‚
  [0x0192, 0x83], // ƒ
  [0x201e, 0x84], // „
  [0x2026, 0x85], // …
  [0x2020, 0x86], // †
  [0x2021, 0x87], // ‡
  [0x02c6, 0x88], // ˆ
  [0x2030, 0x89], // ‰
  [0x0160, 0x8a], // Š
  [0x2039, 0x8b], // ‹
  [0x0152, 0x8c], // Œ
  [0x017d, 0x8e], // Ž
  [0x2018, 0x91], // ‘
  [0x2019, 0x92], // ’
  [0x201c, 0x93], // “
  [0x201d, 0x94], // ”
  [0x2022, 0x95], // •
  [0x2013, 0x96], // –
  [0x2014, 0x97], // —
  [0x02dc, 0x98], // ˜
  [0x2122, 0x99], // ™
  [0x0161, 0x9a], // š
  [0x203a, 0x9b], // ›
  [0x0153, 0x9c], // œ
  [0x017e, 0x9e], // ž
  [0x0178, 0x9f], // Ÿ
];

/** Unicode code point → WinAnsi byte, for every character the encoding has. */
export const WIN_ANSI_BY_CODE_POINT: ReadonlyMap<number, number> = new Map<number, number>([
  ...range(0x20, 0x7e).map((code) => [code, code] as const),
  ...HIGH_CONTROL_RANGE,
  ...range(0xa0, 0xff).map((code) => [code, code] as const),
]);

/** What a character outside the encoding becomes: visibly wrong rather than silently dropped. */
export const REPLACEMENT_BYTE = 0x3f; // ?

/**
 * One byte per character. Text is NFC-normalised first so that a decomposed
 * accent (e + U+0301) prints as é rather than as "e?"; iteration is by code
 * point, so a character outside the BMP becomes one `?`, not two. Control
 * characters (tabs and line breaks included) are the layout's business and
 * are replaced here like anything else the fonts cannot show.
 */
export function encodeWinAnsi(text: string): Buffer {
  const codes: number[] = [];
  for (const character of text.normalize('NFC')) {
    codes.push(WIN_ANSI_BY_CODE_POINT.get(character.codePointAt(0) as number) ?? REPLACEMENT_BYTE);
  }
  return Buffer.from(codes);
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}
