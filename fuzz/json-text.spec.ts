import { RawJson, deeplyNested, deeplyNestedArrays, longArray, manyKeys, toJsonText } from './json-text';

describe('toJsonText', () => {
  it('writes ordinary values as JSON.stringify does, and raw values as they are', () => {
    expect(toJsonText({ a: [1, 'x', null, true], b: { c: 'é\u2028' } })).toBe(JSON.stringify({ a: [1, 'x', null, true], b: { c: 'é\u2028' } }));
    expect(toJsonText({ n: new RawJson('1e400', 'a huge number') })).toBe('{"n":1e400}');
  });

  it('writes a lone surrogate escaped, and an own __proto__ property as a key', () => {
    expect(toJsonText({ s: '\ud800' })).toBe('{"s":"\\ud800"}');
    expect(toJsonText(JSON.parse('{"__proto__":{"polluted":true}}'))).toBe('{"__proto__":{"polluted":true}}');
  });

  it('builds hostile shapes as text that parses to what it says', () => {
    const depthOf = (value: unknown): number => (value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0);
    expect(depthOf(JSON.parse(deeplyNested(50).text))).toBe(50);
    expect(depthOf(JSON.parse(deeplyNestedArrays(50).text))).toBe(50);
    expect(Object.keys(JSON.parse(manyKeys(10_001).text))).toHaveLength(10_001);
    expect(JSON.parse(longArray(3, '{}').text)).toEqual([{}, {}, {}]);
    expect(deeplyNested(100_000).text).toHaveLength(600_001);
  });
});
