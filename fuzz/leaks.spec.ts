import { leakDetector, leaksInAnswer, spellingsOf } from './leaks';
import { checkDigitOf, rutPattern } from './rut';

describe('RUTs', () => {
  it('computes check digits independently of the service', () => {
    expect(checkDigitOf(12_345_678)).toBe('5');
    expect(checkDigitOf(11_111_111)).toBe('1');
    expect(checkDigitOf(10_000_013)).toBe('K');
  });

  it('finds a RUT in every spelling, but not inside a longer number', () => {
    const pattern = rutPattern('12345678-5');
    for (const spelled of ['12345678-5', '12.345.678-5', '123456785', '12,345,678-5', 'rut 12345678', '"12 345 678-5"']) expect(pattern.test(spelled)).toBe(true);
    expect(pattern.test('"recordedAt":1712345678501')).toBe(false);
    expect(pattern.test('**.***.678-5')).toBe(false);
  });

  it('finds a K check digit in either case', () => {
    const pattern = rutPattern('10000013-K');
    expect(pattern.test('10.000.013-k')).toBe(true);
    expect(pattern.test('10000013K')).toBe(true);
  });
});

describe('leakDetector', () => {
  const detector = leakDetector(
    [
      { label: 'API key', value: 'lk_live_abc+def/ghi==' },
      { label: 'short', value: 'abc' },
    ],
    [{ label: 'RUT of customer 1', rut: '12345678-5' }],
  );

  it('finds a secret as is, percent-encoded, JSON-escaped and in base64url', () => {
    for (const text of ['x lk_live_abc+def/ghi== y', 'lk_live_abc%2Bdef%2Fghi%3D%3D', 'lk_live_abc+def\\/ghi==', 'lk_live_abc-def_ghi']) {
      expect(detector.find(text)).toEqual(['API key']);
    }
    expect(spellingsOf('plain')).toEqual(['plain']);
  });

  it('ignores values too short to be told from chance, and finds RUTs', () => {
    expect(detector.find('abc abc 12.345.678-5')).toEqual(['RUT of customer 1']);
  });

  it('masks what it finds with its label', () => {
    expect(detector.mask('key=lk_live_abc+def/ghi== rut=12.345.678-5')).toBe('key=«API key» rut=«RUT of customer 1»');
  });
});

describe('leaksInAnswer', () => {
  const detector = leakDetector([{ label: 'page token', value: 'tok_0123456789abcdef' }], []);
  const request = { url: '/embed/t/sessions/s?token=tok_0123456789abcdef', headers: {} };

  it('lets a page trade the token it was sent for a cookie', () => {
    const answer = { headers: { 'set-cookie': ['embed=tok_0123456789abcdef; HttpOnly'], location: '/embed/t/sessions/s' }, body: Buffer.from('') };
    expect(leaksInAnswer(detector, request, answer)).toEqual([]);
  });

  it('reports the token in a body or another header, even to the request that carried it', () => {
    const answer = { headers: { location: '/x?token=tok_0123456789abcdef' }, body: Buffer.from('<input value="tok_0123456789abcdef">') };
    expect(leaksInAnswer(detector, request, answer)).toEqual([
      { label: 'page token', where: 'body' },
      { label: 'page token', where: 'header location' },
    ]);
  });

  it('reports a cookie carrying a secret the request did not present', () => {
    const answer = { headers: { 'set-cookie': 'embed=tok_0123456789abcdef' }, body: Buffer.from('') };
    expect(leaksInAnswer(detector, { url: '/embed/t/sessions/s', headers: {} }, answer)).toEqual([{ label: 'page token', where: 'header set-cookie' }]);
  });
});
