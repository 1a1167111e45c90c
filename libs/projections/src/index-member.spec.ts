import { cursorOf, indexMember, InvalidCursorError, memberOfCursor, parseIndexMember } from './index-member';

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

describe('index cursors', () => {
  it('stand for the member they were made of, in URL-safe characters', () => {
    const member = indexMember('0000001764000000000', 't1:ñ/+?');
    const cursor = cursorOf(member);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(memberOfCursor(cursor)).toBe(member);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'AGE+'],
    ['padded', `${cursorOf(indexMember('1', 'a'))}=`],
    ['with characters the decoder would skip', `${cursorOf(indexMember('1', 'a'))}!`],
    ['not canonical (unused bits set)', 'AGF'],
    ['without a separator', cursorOf('t1:a')],
    ['with a sort key outside printable ASCII', cursorOf('ñ\0t1:a')],
    ['not UTF-8', Buffer.from([0xff, 0x00, 0x61]).toString('base64url')],
  ])('refuse a cursor that is %s', (_case, cursor) => {
    expect(() => memberOfCursor(cursor)).toThrow(InvalidCursorError);
  });
});
