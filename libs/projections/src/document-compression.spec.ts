import { canonicalJson } from '@ledger/event-store';
import { DocumentCodec } from './document-compression';

const dictionary = canonicalJson({ tenantId: 'tenant', title: 'Autorización de consulta', status: 'active', notes: ['revocación', 'extensión'] });
const doc = { tenantId: 't-42', title: 'Autorización de consulta al registro', status: 'active', notes: ['revocación'], count: 7 };

describe('DocumentCodec', () => {
  const compressing = new DocumentCodec({ dictionary });
  const plain = new DocumentCodec(undefined);

  it('gives back the exact text it stored, accents included', () => {
    const text = canonicalJson(doc);
    expect(compressing.decode(compressing.encode(text))).toBe(text);
    expect(plain.decode(plain.encode(text))).toBe(text);
  });

  it("stores less than the text when the document shares the dictionary's words", () => {
    const text = canonicalJson(doc);
    expect(compressing.encode(text).length).toBeLessThan(Buffer.byteLength(text) / 2);
    expect(compressing.encode(text).length).toBeLessThan(new DocumentCodec({ dictionary: '{}' }).encode(text).length);
  });

  it('stores the text itself when the projection does not compress', () => {
    const text = canonicalJson(doc);
    expect(plain.encode(text).toString('utf8')).toBe(text);
  });

  it('reads a document stored before its projection compressed (a rolling deploy)', () => {
    const text = canonicalJson(doc);
    expect(compressing.decode(Buffer.from(text))).toBe(text);
  });

  it('refuses a document deflated with another dictionary rather than reading it wrong', () => {
    const stored = compressing.encode(canonicalJson(doc));
    expect(() => new DocumentCodec({ dictionary: canonicalJson({ other: 'words' }) }).decode(stored)).toThrow();
    expect(() => plain.decode(stored)).toThrow(/does not compress/);
  });

  it('refuses a dictionary deflate would only use the end of', () => {
    expect(() => new DocumentCodec({ dictionary: 'x'.repeat(8000) })).toThrow(/at most 7930 bytes/);
  });
});
