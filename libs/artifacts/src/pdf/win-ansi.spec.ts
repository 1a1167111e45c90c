import { encodeWinAnsi } from './win-ansi';
import { textWidth } from './helvetica-metrics';

describe('encodeWinAnsi', () => {
  it('writes Spanish letters and marks as their WinAnsi bytes', () => {
    expect([...encodeWinAnsi('áéíóúüñÑ¿¡ÁÉÍÓÚÜ')]).toEqual([
      0xe1, 0xe9, 0xed, 0xf3, 0xfa, 0xfc, 0xf1, 0xd1, 0xbf, 0xa1, 0xc1, 0xc9, 0xcd, 0xd3, 0xda, 0xdc,
    ]);
  });

  it('places the 0x80–0x9F characters where WinAnsi has them, not at their Unicode values', () => {
    expect([...encodeWinAnsi('€ “–” … •')]).toEqual([0x80, 0x20, 0x93, 0x96, 0x94, 0x20, 0x85, 0x20, 0x95]);
  });

  it('composes a decomposed accent before encoding it', () => {
    expect([...encodeWinAnsi('Mari\u0301a')]).toEqual([...Buffer.from('Mar\xeda', 'latin1')]);
  });

  it('replaces each character outside the encoding, or a control character, by one ?', () => {
    expect(encodeWinAnsi('漢 😀 \u0007 \u0081').toString('latin1')).toBe('? ? ? ?');
  });
});

describe('textWidth', () => {
  it('uses the AFM widths of each font', () => {
    // Helvetica: a 556, i 222, ñ 556; Helvetica-Bold: a 556, i 278, ñ 611.
    expect(textWidth(encodeWinAnsi('aiñ'), 'regular', 10)).toBeCloseTo(13.34, 10);
    expect(textWidth(encodeWinAnsi('aiñ'), 'bold', 10)).toBeCloseTo(14.45, 10);
    expect(textWidth(encodeWinAnsi('W'), 'regular', 1000)).toBe(944);
  });
});
