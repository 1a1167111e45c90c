import { ranked, Ranked } from '../test/ranked.projection';
import { recorded, streamCounts, StreamCount } from '../test/stream-counts.projection';
import { canonicalJson } from '@ledger/event-store';
import { diffBatch, DocumentProjection, evolveBatch, groupedId, splitGroupedId, StoredDocument, storedDocument, touchedIds } from './projection';

const projection = streamCounts();

describe('touchedIds', () => {
  it('lists each routed document once and leaves out unrouted events', () => {
    const events = [recorded('a', 'Opened', 1), recorded('b', 'Opened', 2), recorded('a', 'Noted', 3), recorded('c', 'Ignored', 4)];
    expect(touchedIds(projection, events)).toEqual(['t1:a', 't1:b']);
  });
});

describe('evolveBatch', () => {
  it('folds every event over the document as left by the previous one', () => {
    const loaded = new Map<string, StreamCount | null>([
      ['t1:a', { tenantId: 't1', stream: 'a', count: 5, lastType: 'Opened' }],
      ['t1:b', null],
    ]);
    const after = evolveBatch(projection, loaded, [recorded('a', 'Noted', 6), recorded('b', 'Opened', 7), recorded('a', 'Noted', 8)]);
    expect(after.get('t1:a')).toEqual({ tenantId: 't1', stream: 'a', count: 7, lastType: 'Noted' });
    expect(after.get('t1:b')).toEqual({ tenantId: 't1', stream: 'b', count: 1, lastType: 'Opened' });
    expect(loaded.get('t1:a')?.count).toBe(5);
  });

  it('deletes with null and lets a later event create the document again', () => {
    const after = evolveBatch(projection, new Map([['t1:a', { tenantId: 't1', stream: 'a', count: 2, lastType: 'Opened' }]]), [
      recorded('a', 'Closed', 3),
    ]);
    expect(after.get('t1:a')).toBeNull();
    const reopened = evolveBatch(projection, after, [recorded('a', 'Opened', 4)]);
    expect(reopened.get('t1:a')).toEqual({ tenantId: 't1', stream: 'a', count: 1, lastType: 'Opened' });
  });
});

/** The documents as the runner loads them: each with its stored text. */
function stored<TDoc>(docs: Map<string, TDoc | null>): Map<string, StoredDocument<TDoc> | null> {
  return new Map([...docs].map(([id, doc]) => [id, doc === null ? null : storedDocument(doc)]));
}

describe('diffBatch', () => {
  const opened: StreamCount = { tenantId: 't1', stream: 'a', count: 1, lastType: 'Opened' };
  const noted: StreamCount = { tenantId: 't1', stream: 'a', count: 2, lastType: 'Noted' };

  it('puts a new document and adds it to its index', () => {
    expect(diffBatch(projection, stored(new Map([['t1:a', null]])), new Map([['t1:a', opened]]))).toEqual({
      put: [{ id: 't1:a', text: canonicalJson(opened) }],
      remove: [],
      indexAdd: [{ index: 'lastType', value: 't1:Opened', id: 't1:a' }],
      indexRemove: [],
    });
  });

  it('moves a changed document from its old index entry to the new one', () => {
    const writes = diffBatch(projection, stored(new Map([['t1:a', opened]])), new Map([['t1:a', noted]]));
    expect(writes.indexAdd).toEqual([{ index: 'lastType', value: 't1:Noted', id: 't1:a' }]);
    expect(writes.indexRemove).toEqual([{ index: 'lastType', value: 't1:Opened', id: 't1:a' }]);
  });

  it('keeps an index entry that did not change', () => {
    const more = { ...opened, count: 9 };
    const writes = diffBatch(projection, stored(new Map([['t1:a', opened]])), new Map([['t1:a', more]]));
    expect(writes).toEqual({ put: [{ id: 't1:a', text: canonicalJson(more) }], remove: [], indexAdd: [], indexRemove: [] });
  });

  it('removes a deleted document and its index entries', () => {
    expect(diffBatch(projection, stored(new Map([['t1:a', noted]])), new Map([['t1:a', null]]))).toEqual({
      put: [],
      remove: ['t1:a'],
      indexAdd: [],
      indexRemove: [{ index: 'lastType', value: 't1:Noted', id: 't1:a' }],
    });
  });

  it('writes nothing for a document that ends as it started', () => {
    const writes = diffBatch(projection, stored(new Map([['t1:a', opened], ['t1:b', null]])), new Map([['t1:a', { ...opened }], ['t1:b', null]]));
    expect(writes).toEqual({ put: [], remove: [], indexAdd: [], indexRemove: [] });
  });
});

describe('diffBatch with sort keys', () => {
  const projection = ranked();
  const first: Ranked = { tenantId: 't1', stream: 'a', rank: '0002' };

  it('adds a new document under its sort key', () => {
    expect(diffBatch(projection, stored(new Map([['t1:a', null]])), new Map([['t1:a', first]])).indexAdd).toEqual([
      { index: 'rank', value: 't1', sortKey: '0002', id: 't1:a' },
    ]);
  });

  it('moves a document whose sort key changed: the entry under the old key is removed, the one under the new key added', () => {
    const writes = diffBatch(projection, stored(new Map([['t1:a', first]])), new Map([['t1:a', { ...first, rank: '0010' }]]));
    expect(writes.indexRemove).toEqual([{ index: 'rank', value: 't1', sortKey: '0002', id: 't1:a' }]);
    expect(writes.indexAdd).toEqual([{ index: 'rank', value: 't1', sortKey: '0010', id: 't1:a' }]);
  });

  it('keeps an entry whose value and sort key did not change, an empty sort key being none', () => {
    const renamed = { ...first, stream: 'b' };
    expect(diffBatch(projection, stored(new Map([['t1:a', first]])), new Map([['t1:a', renamed]]))).toMatchObject({ indexAdd: [], indexRemove: [] });
    const optional: DocumentProjection<Ranked> = {
      ...projection,
      indexes: (doc) => [{ index: 'rank', value: doc.tenantId, ...(doc.rank === 'none' ? {} : { sortKey: doc.rank }) }],
    };
    const writes = diffBatch(optional, stored(new Map([['t1:a', { ...first, rank: 'none' }]])), new Map([['t1:a', { ...first, rank: '' }]]));
    expect(writes).toEqual({ put: [{ id: 't1:a', text: canonicalJson({ ...first, rank: '' }) }], remove: [], indexAdd: [], indexRemove: [] });
  });

  it('removes a deleted document from under its sort key', () => {
    expect(diffBatch(projection, stored(new Map([['t1:a', first]])), new Map([['t1:a', null]])).indexRemove).toEqual([
      { index: 'rank', value: 't1', sortKey: '0002', id: 't1:a' },
    ]);
  });
});

describe('grouped ids (decision 0088)', () => {
  it('name a group and a field, and give both back; a field may hold the separator, a group may not', () => {
    expect(splitGroupedId(groupedId('t1:consent-1', 'redec-access-t1-a'))).toEqual({ group: 't1:consent-1', field: 'redec-access-t1-a' });
    expect(splitGroupedId(groupedId('t1', 'a#b'))).toEqual({ group: 't1', field: 'a#b' });
    expect(() => groupedId('t1#x', 'a')).toThrow(/contains no "#"/);
    expect(() => splitGroupedId('t1:a')).toThrow(/not the id of a grouped document/);
  });
});
