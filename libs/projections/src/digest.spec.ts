import { ranked, Ranked } from '../test/ranked.projection';
import { recorded, streamCounts, StreamCount } from '../test/stream-counts.projection';
import { applyDigestChange, digestChange, digestModel, EMPTY_DIGEST, ModelContent } from './digest';
import { diffBatch, DocumentProjection, evolveBatch, StoredDocument, storedDocument } from './projection';

const content: ModelContent = {
  docs: [
    { id: 't1:b', doc: { count: 2, lastType: 'Noted' } },
    { id: 't1:a', doc: { count: 1, lastType: 'Opened' } },
  ],
  indexes: [
    { index: 'lastType', value: 't1:Opened', members: [{ id: 't1:a' }] },
    { index: 'lastType', value: 't1:Noted', members: [{ id: 't1:c' }, { id: 't1:b' }] },
  ],
};

describe('digestModel', () => {
  it('XORs the SHA-256 of one canonical JSON line per document and per index member (digests stay comparable across releases)', () => {
    // sha256('["doc","t1:a",{"count":1,"lastType":"Opened"}]') XOR sha256('["index","lastType","t1:Opened","t1:a"]')
    const single: ModelContent = {
      docs: [{ id: 't1:a', doc: { lastType: 'Opened', count: 1 } }],
      indexes: [{ index: 'lastType', value: 't1:Opened', members: [{ id: 't1:a' }] }],
    };
    expect(digestModel(single)).toBe('0319aa0585951b39c860196725cc61ea9a7913264b1a32908f6717ab428b8f5e');
  });

  it('does not depend on the order keys were scanned, members listed or document fields written', () => {
    const reordered: ModelContent = {
      docs: [
        { id: 't1:a', doc: { lastType: 'Opened', count: 1 } },
        { id: 't1:b', doc: { lastType: 'Noted', count: 2 } },
      ],
      indexes: [
        { index: 'lastType', value: 't1:Noted', members: [{ id: 't1:b' }, { id: 't1:c' }] },
        { index: 'lastType', value: 't1:Opened', members: [{ id: 't1:a' }] },
      ],
    };
    expect(digestModel(reordered)).toBe(digestModel(content));
  });

  it('changes when a document, an index member or an id changes', () => {
    const base = digestModel(content);
    expect(digestModel({ ...content, docs: [content.docs[0], { id: 't1:a', doc: { count: 2, lastType: 'Opened' } }] })).not.toBe(base);
    expect(digestModel({ ...content, indexes: [content.indexes[0], { ...content.indexes[1], members: [{ id: 't1:b' }] }] })).not.toBe(base);
    expect(digestModel({ ...content, docs: [content.docs[0], { id: 't1:z', doc: content.docs[1].doc }] })).not.toBe(base);
  });

  it('hashes a member with a sort key as [sortKey, id]', () => {
    // sha256('["index","due","t1",["0002","t1:a"]]') XOR sha256('["index","due","t1",["0010","t1:b"]]')
    const ordered: ModelContent = {
      docs: [],
      indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:b', sortKey: '0010' }, { id: 't1:a', sortKey: '0002' }] }],
    };
    expect(digestModel(ordered)).toBe('403d6032373f735ffbb950030eba527f3d710d47351a4652e4bf87e839d079b0');
  });

  it('changes when only a sort key changes', () => {
    const keyed = (sortKey: string): ModelContent => ({ docs: [], indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:a', sortKey }] }] });
    expect(digestModel(keyed('0002'))).not.toBe(digestModel(keyed('0003')));
    expect(digestModel(keyed('0002'))).not.toBe(digestModel({ docs: [], indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:a' }] }] }));
  });

  it('is the empty digest for an empty model', () => {
    expect(digestModel({ docs: [], indexes: [] })).toBe(EMPTY_DIGEST);
  });
});

/** The content of documents as a model holds them, with every index member. */
function contentOf<TDoc>(projection: DocumentProjection<TDoc>, docs: Map<string, TDoc | null>): ModelContent {
  const present = [...docs].filter((entry): entry is [string, TDoc] => entry[1] !== null);
  return {
    docs: present.map(([id, doc]) => ({ id, doc })),
    indexes: present.flatMap(([id, doc]) => (projection.indexes?.(doc) ?? []).map(({ index, value, sortKey }) => ({ index, value, members: [{ id, sortKey }] }))),
  };
}

function stored<TDoc>(docs: Map<string, TDoc | null>): Map<string, StoredDocument<TDoc> | null> {
  return new Map([...docs].map(([id, doc]) => [id, doc === null ? null : storedDocument(doc)]));
}

describe('digestChange', () => {
  it('turns the digest of the documents before a batch into the digest of the documents after it', () => {
    const projection = streamCounts();
    const before = new Map<string, StreamCount | null>([
      ['t1:a', { tenantId: 't1', stream: 'a', count: 5, lastType: 'Opened' }],
      ['t1:b', { tenantId: 't1', stream: 'b', count: 1, lastType: 'Opened' }],
      ['t1:c', null],
      ['t1:d', { tenantId: 't1', stream: 'd', count: 2, lastType: 'Noted' }],
    ]);
    // a changes and moves index value, b is deleted, c is created, d is left as it was.
    const after = evolveBatch(projection, before, [recorded('a', 'Noted', 6), recorded('b', 'Closed', 7), recorded('c', 'Opened', 8)]);
    const change = digestChange(stored(before), diffBatch(projection, stored(before), after));
    expect(applyDigestChange(digestModel(contentOf(projection, before)), change)).toBe(digestModel(contentOf(projection, after)));
  });

  it('moves a member whose sort key changed', () => {
    const projection = ranked();
    const before = new Map<string, Ranked | null>([['t1:a', { tenantId: 't1', stream: 'a', rank: '0002' }]]);
    const after = new Map<string, Ranked | null>([['t1:a', { tenantId: 't1', stream: 'a', rank: '0010' }]]);
    const change = digestChange(stored(before), diffBatch(projection, stored(before), after));
    expect(applyDigestChange(digestModel(contentOf(projection, before)), change)).toBe(digestModel(contentOf(projection, after)));
  });

  it('changes nothing when a batch writes nothing', () => {
    const projection = streamCounts();
    const docs = new Map<string, StreamCount | null>([['t1:a', { tenantId: 't1', stream: 'a', count: 5, lastType: 'Opened' }]]);
    expect(digestChange(stored(docs), diffBatch(projection, stored(docs), docs))).toEqual(Buffer.alloc(32));
  });
});

