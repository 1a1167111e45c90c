import { generateInternalConsentCode, isInternalConsentCode } from './internal-consent-code';

describe('internalConsentCode', () => {
  it('is 20 characters of 0-9A-Z', () => {
    for (let i = 0; i < 200; i += 1) expect(generateInternalConsentCode()).toMatch(/^[0-9A-Z]{20}$/);
  });

  it('is never all 9 nor all 0, which the registry reserves', () => {
    expect(isInternalConsentCode('9'.repeat(20))).toBe(false);
    expect(isInternalConsentCode('0'.repeat(20))).toBe(false);
    const nines = [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9];
    const draws = [...nines, ...nines.map(() => 0), ...nines.map((_, i) => i)];
    const code = generateInternalConsentCode(() => draws.shift()!);
    expect(code).toBe('0123456789ABCDEFGHIJ');
  });

  it('refuses other lengths and characters', () => {
    for (const bad of ['ABC', 'a'.repeat(20), 'ABCDEFGHIJ-LMNOPQRST', 'A'.repeat(21)]) expect(isInternalConsentCode(bad)).toBe(false);
    expect(isInternalConsentCode('A1B2C3D4E5F6G7H8I9J0')).toBe(true);
  });
});
