import { generateInternalConsentCode, internalConsentCodeFor, isInternalConsentCode } from './internal-consent-code';

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

  it("is drawn from the consent and the attempt alone, so a consent's concurrent grants draw one code", () => {
    const code = internalConsentCodeFor('t1', 'c1', 0);
    expect(isInternalConsentCode(code)).toBe(true);
    expect(internalConsentCodeFor('t1', 'c1', 0)).toBe(code);
    const others = [internalConsentCodeFor('t1', 'c1', 1), internalConsentCodeFor('t1', 'c2', 0), internalConsentCodeFor('t2', 'c1', 0)];
    expect(new Set([code, ...others]).size).toBe(4);
  });

  it('draws every character about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i += 1) for (const c of internalConsentCodeFor('t', `c${i}`, 0)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 40,000 characters over 36 symbols: about 1,111 each; a biased draw would leave some far off.
    expect(counts.size).toBe(36);
    for (const count of counts.values()) expect(Math.abs(count - 40_000 / 36)).toBeLessThan(200);
  });
});
