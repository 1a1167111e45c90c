import { indexMember, parseIndexMember } from './index-member';

describe('index members', () => {
  it('sort byte by byte (as Redis orders them) in (sort key, id) order, a key before the keys it is a prefix of', () => {
    const entries = [
      { sortKey: '0010', id: 't1:a' },
      { sortKey: '001', id: 't1:z' },
      { sortKey: '0002', id: 't1:b' },
      { sortKey: '0002', id: 't1:a' },
      { sortKey: '0010 ', id: 't1:a' },
      { sortKey: undefined, id: 't1:c' },
    ];
    const members = entries.map((e) => Buffer.from(indexMember(e.sortKey, e.id)));
    const order = members.sort(Buffer.compare).map((m) => parseIndexMember(m.toString('utf8')));
    expect(order).toEqual([
      { id: 't1:c' },
      { sortKey: '0002', id: 't1:a' },
      { sortKey: '0002', id: 't1:b' },
      { sortKey: '001', id: 't1:z' },
      { sortKey: '0010', id: 't1:a' },
      { sortKey: '0010 ', id: 't1:a' },
    ]);
  });

  it('give the id back whole, separators and non-ASCII included, and treat an empty sort key as none', () => {
    expect(parseIndexMember(indexMember('2025-01-01', 't1:cfg:\0ñ'))).toEqual({ sortKey: '2025-01-01', id: 't1:cfg:\0ñ' });
    expect(indexMember('', 't1:a')).toBe(indexMember(undefined, 't1:a'));
    expect(parseIndexMember(indexMember('', 't1:a'))).toEqual({ id: 't1:a' });
  });

  it.each([
    ['a NUL', 'a\0b'],
    ['a control character', '0001\n'],
    ['a non-ASCII character', 'ñandú'],
  ])('refuse a sort key with %s', (_case, sortKey) => {
    expect(() => indexMember(sortKey, 't1:a')).toThrow('an index sort key must be printable ASCII');
  });
});
