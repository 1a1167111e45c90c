import { normalizeRut, rutCheckDigit } from './rut';

describe('RUT', () => {
  it.each([
    ['12.345.678-5', '12345678-5'],
    ['12345678-5', '12345678-5'],
    ['123456785', '12345678-5'],
    [' 12 345 678 5 ', '12345678-5'],
    ['10.000.013-k', '10000013-K'],
    ['10.000.004-0', '10000004-0'],
    ['11.111.111-1', '11111111-1'],
    ['76.086.428-5', '76086428-5'],
    ['012.345.678-5', '12345678-5'],
    ['1-9', '1-9'],
  ])('normalizes %s to %s', (input, expected) => {
    expect(normalizeRut(input)).toBe(expected);
  });

  it.each(['12.345.678-6', '12345678', '', 'K', 'abc', '12.345.678-', '0-0', '1234567890-1', '10000013-1'])('rejects %s', (input) => {
    expect(normalizeRut(input)).toBeNull();
  });

  it('computes check digits including 0 and K', () => {
    expect(rutCheckDigit('12345678')).toBe('5');
    expect(rutCheckDigit('10000013')).toBe('K');
    expect(rutCheckDigit('10000004')).toBe('0');
    expect(rutCheckDigit('5126663')).toBe('3');
  });
});
