import { jsonShapeRefusal } from './bounded-json';

const shape = (text: string, maxDepth?: number, maxValues?: number) => jsonShapeRefusal(Buffer.from(text), maxDepth, maxValues);

describe('jsonShapeRefusal', () => {
  it('lets through a body within both limits, scalars and empty containers included', () => {
    for (const text of ['{"a":{"b":[1,2,{"c":null}]},"d":"x"}', '[]', '{}', '"text"', '7', '', '  { }  ']) {
      expect(shape(text)).toBeUndefined();
    }
  });

  it('counts nesting of objects and arrays alike', () => {
    expect(shape('[{"a":[{}]}]', 4)).toBeUndefined();
    expect(shape('[{"a":[{}]}]', 3)).toBe('too_deeply_nested');
    expect(shape('['.repeat(33) + ']'.repeat(33))).toBe('too_deeply_nested');
    expect(shape('['.repeat(32) + ']'.repeat(32))).toBeUndefined();
  });

  it('refuses a body nested 100,000 levels deep, and one that never closes', () => {
    expect(shape('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))).toBe('too_deeply_nested');
    expect(shape('['.repeat(100_000))).toBe('too_deeply_nested');
  });

  it('counts every key and every array element, at any depth', () => {
    expect(shape('{"a":1,"b":[1,2,3],"c":{"d":{}}}', 32, 7)).toBeUndefined();
    expect(shape('{"a":1,"b":[1,2,3],"c":{"d":{}}}', 32, 6)).toBe('too_many_values');
    expect(shape(`[${Array(10_000).fill('{}').join(',')}]`)).toBeUndefined();
    expect(shape(`[${Array(10_001).fill('{}').join(',')}]`)).toBe('too_many_values');
    expect(shape(`[${Array(3_300_000).fill('{}').join(',')}]`)).toBe('too_many_values');
  });

  it('ignores structure inside strings, escaped quotes and backslashes included', () => {
    const text = JSON.stringify({ a: '[[[{{{,,,', b: 'quote " then [[[', c: 'backslash \\', d: '\\"[[[', e: 'ñ “[”' });
    expect(shape(text, 1, 5)).toBeUndefined();
    expect(shape(`{"a":"\\\\"${',"x":1'.repeat(5)}}`, 1, 5)).toBe('too_many_values');
  });
});
