import { Base64Bytes, sha256Hex } from '@ledger/platform';
import { eventLoopTurnsDuring } from '@ledger/platform/testing';
import { canonicalJson, canonicalJsonSha256 } from './canonical-json';

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

  it('writes the same text whether JSON.stringify writes it or the walk does', () => {
    // A document as a projection makes it: keys out of order, members added, undefined, nested arrays.
    const document = { z: 1, a: { y: [{ d: 1, c: undefined, b: [3, { f: 0, e: 'x' }] }], x: null }, m: 'ñ', gone: undefined };
    expect(canonicalJson(document)).toBe('{"a":{"x":null,"y":[{"b":[3,{"e":"x","f":0}],"d":1}]},"m":"ñ","z":1}');
    // Sorted already (a document read back), with one member that is not: the members before it are kept.
    expect(canonicalJson({ a: 1, b: { d: 2, c: 1 }, c: [{ b: 1, a: 0 }] })).toBe('{"a":1,"b":{"c":1,"d":2},"c":[{"a":0,"b":1}]}');
    // What the native encoder cannot be made to write in sorted order, nested where the rest could be.
    expect(canonicalJson({ b: { '9': 'n', '10': 't', x: 0 }, a: 1 })).toBe('{"a":1,"b":{"10":"t","9":"n","x":0}}');
    expect(canonicalJson(JSON.parse('{"b":{"__proto__":{"y":1,"x":0},"a":2},"a":1}'))).toBe('{"a":1,"b":{"__proto__":{"x":0,"y":1},"a":2}}');
    expect(canonicalJson({ b: [new Date(0)], a: { toJSON: () => ({ d: 1, c: 0 }) } })).toBe('{"a":{"c":0,"d":1},"b":["1970-01-01T00:00:00.000Z"]}');
    expect(canonicalJson({ b: Object.assign(Object.create(null), { d: 1, c: 2 }), a: new String('xy') })).toBe('{"a":{"0":"x","1":"y"},"b":{"c":2,"d":1}}');
    expect([undefined, () => 1].map(canonicalJson)).toEqual(['null', 'null']);
    expect(canonicalJson([new Number(1), new Boolean(false), Object(1n), Object(Symbol('s'))])).toBe('[{},{},{},{}]');
  });

  it('writes a class instance as its own enumerable members, as a plain object with the same members', () => {
    class Nested {
      y = [1, { b: 2, a: 1 }];
      x = 'x';
    }
    class Body {
      z = 1;
      nested = new Nested();
      a: undefined = undefined;
      get derived(): number {
        return 2;
      }
    }
    const body = new Body();
    expect(canonicalJson(body)).toBe('{"nested":{"x":"x","y":[1,{"a":1,"b":2}]},"z":1}');
    expect(canonicalJson(body)).toBe(canonicalJson(JSON.parse(JSON.stringify(body))));
    // The copy is the encoder's: the instance itself is left as it was.
    expect(Object.keys(body)).toEqual(['z', 'nested', 'a']);
    expect(body).toBeInstanceOf(Body);
  });

  it('writes values 64 levels deep natively and deeper ones by the walk, alike', () => {
    const nested = (depth: number) => {
      let value: unknown = { b: 1, a: 0 };
      for (let i = 0; i < depth; i += 1) value = { z: [value], y: i };
      return value;
    };
    for (const depth of [30, 31, 32, 33, 40]) {
      const text = canonicalJson(nested(depth));
      expect(text).toBe(JSON.stringify(JSON.parse(text), (_key, value: unknown) => value));
      expect(text.startsWith(`{"y":${depth - 1},"z":[`)).toBe(true);
      expect(text).toContain('{"a":0,"b":1}');
    }
  });
});

describe('canonicalJsonSha256', () => {
  const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 31 + (i >> 9)) % 256));

  it('is the SHA-256 of canonicalJson for a value without decoded bytes', async () => {
    const value = { b: [1, { z: 'ñ', y: null }], a: 'x', __proto__: 'kept' };
    expect(await canonicalJsonSha256(value)).toBe(sha256Hex(canonicalJson(value)));
  });

  it('hashes decoded bytes as the base64 text they were sent as, padding included, wherever they sit and however many', async () => {
    for (const [length, padding] of [[1, 2], [1, 0], [2, 1], [3, 0], [3, 3], [200_000, 1], [147_456, 0], [3 * 1024 * 1024 + 1, 2]]) {
      const sent = bytes(length).toString('base64').replace(/=+$/, '') + '='.repeat(padding);
      const asSent = (content: unknown) => ({ path: '/x', body: { z: 1, evidence: { kind: 'audio', contentBase64: content }, items: [{ contentBase64: content }] } });
      expect(await canonicalJsonSha256(asSent(new Base64Bytes(bytes(length), padding)))).toBe(sha256Hex(canonicalJson(asSent(sent))));
    }
  });

  it('hashes text that was not base64 as one marker, whatever it was, rather than fail', async () => {
    const value = (content: unknown) => ({ evidence: { contentBase64: content } });
    expect(await canonicalJsonSha256(value(new Base64Bytes()))).toBe(sha256Hex(canonicalJson(value('\u0000not base64'))));
  });

  it('hashes megabytes of decoded bytes without holding the event loop from start to end', async () => {
    const value = { evidence: { contentBase64: new Base64Bytes(bytes(3 * 1024 * 1024)) } };
    expect(await eventLoopTurnsDuring(() => canonicalJsonSha256(value))).toBeGreaterThanOrEqual(2);
  });

  it('leaves the value it hashes as it was', async () => {
    const content = new Base64Bytes(bytes(10));
    const value = { evidence: { contentBase64: content } };
    await canonicalJsonSha256(value);
    expect(value.evidence.contentBase64).toBe(content);
  });
});
