import { digestModel, ModelContent } from './digest';

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
  it('hashes one canonical JSON line per document, then per index value (digests stay comparable across releases)', () => {
    // printf '["doc","t1:a",{"count":1,"lastType":"Opened"}]\n["index","lastType","t1:Opened",["t1:a"]]\n' | sha256sum
    const single: ModelContent = {
      docs: [{ id: 't1:a', doc: { lastType: 'Opened', count: 1 } }],
      indexes: [{ index: 'lastType', value: 't1:Opened', members: [{ id: 't1:a' }] }],
    };
    expect(digestModel(single)).toBe('615db86b956b9ace3f2cecba9369623211b7c860083c494422f990af2725a7c6');
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

  it('hashes a member with a sort key as [sortKey, id], members in (sort key, id) order', () => {
    // printf '["index","due","t1",[["0002","t1:a"],["0010","t1:b"]]]\n' | sha256sum
    const ordered: ModelContent = {
      docs: [],
      indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:b', sortKey: '0010' }, { id: 't1:a', sortKey: '0002' }] }],
    };
    expect(digestModel(ordered)).toBe('4bf2b1520561e518082037fb0358383265f635ed1ad1b5ffb2aa1e7da453d9da');
  });

  it('changes when only a sort key changes', () => {
    const keyed = (sortKey: string): ModelContent => ({ docs: [], indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:a', sortKey }] }] });
    expect(digestModel(keyed('0002'))).not.toBe(digestModel(keyed('0003')));
    expect(digestModel(keyed('0002'))).not.toBe(digestModel({ docs: [], indexes: [{ index: 'due', value: 't1', members: [{ id: 't1:a' }] }] }));
  });
});
