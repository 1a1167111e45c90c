import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('sorts keys by code unit, integer-like keys included', () => {
    expect(canonicalJson({ '2': 'b', '10': 'a', B: 0, a: 0 })).toBe('{"10":"a","2":"b","B":0,"a":0}');
  });

  it('encodes what it reads back the same way as what was written', () => {
    const written = { at: new Date(0), gone: undefined, list: [undefined, 1], text: 'ñ"\n' };
    expect(canonicalJson(JSON.parse(JSON.stringify(written)))).toBe(canonicalJson(written));
    expect(canonicalJson(written)).toBe('{"at":"1970-01-01T00:00:00.000Z","list":[null,1],"text":"ñ\\"\\n"}');
  });

  it('encodes scalars as JSON does', () => {
    expect([null, true, 1.5, 'x'].map(canonicalJson)).toEqual(['null', 'true', '1.5', '"x"']);
  });

  it('encodes a value nested 100,000 levels deep without running out of stack', () => {
    let deep: unknown = { leaf: [1, undefined] };
    let expected = '{"leaf":[1,null]}';
    for (let i = 0; i < 100_000; i += 1) {
      deep = i % 2 === 0 ? [deep] : { z: deep, a: undefined };
      expected = i % 2 === 0 ? `[${expected}]` : `{"z":${expected}}`;
    }
    expect(canonicalJson(deep)).toBe(expected);
  });

  it('writes a value shared by two members twice and refuses one that contains itself', () => {
    const shared = { b: 2, a: 1 };
    expect(canonicalJson({ y: shared, x: [shared] })).toBe('{"x":[{"a":1,"b":2}],"y":{"a":1,"b":2}}');
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = [loop];
    expect(() => canonicalJson(loop)).toThrow(TypeError);
  });
});
