import { randomUUID } from 'node:crypto';
import { fromRedisText, toRedisText } from './redis-text';

describe('the read model\'s texts in Redis', () => {
  it('writes each lowercase UUID in 23 characters and reads every text back as it was', () => {
    const tenant = randomUUID();
    const consent = randomUUID();
    const id = `${tenant}:${consent}`;
    expect(toRedisText(id)).toHaveLength(47);
    expect(fromRedisText(toRedisText(id))).toBe(id);
    const texts = [
      '',
      'LN-BAT-0319355066',
      `${tenant}:core-loans:LN-1`,
      `\x01${tenant}\x01\x01x`,
      `${tenant.toUpperCase()}:${consent}`,
      `${tenant}${consent}`,
      'ends with an escape \x01',
      `${tenant.slice(0, 35)}:not a whole uuid`,
    ];
    for (const text of texts) expect(fromRedisText(toRedisText(text))).toBe(text);
    // An upper-case UUID is not the same text once lowered, so it is kept as it is.
    expect(toRedisText(tenant.toUpperCase())).toBe(tenant.toUpperCase());
  });

  it('keeps an index member of a tenant\'s entity within the 64 bytes of a listpack', () => {
    const member = `\0${toRedisText(`${randomUUID()}:${randomUUID()}`)}`;
    expect(Buffer.byteLength(member)).toBeLessThanOrEqual(64);
  });

  it('keeps texts apart that differ only where one holds a UUID and the other its stored form', () => {
    const uuid = randomUUID();
    const lookalike = toRedisText(uuid);
    expect(toRedisText(lookalike)).not.toBe(toRedisText(uuid));
    expect(fromRedisText(toRedisText(lookalike))).toBe(lookalike);
  });
});

describe('a UUID in its stored form', () => {
  it('is the base64url of its 16 bytes, as Buffer encodes them', () => {
    for (let i = 0; i < 200; i += 1) {
      const uuid = randomUUID();
      expect(toRedisText(uuid)).toBe(`\x01${Buffer.from(uuid.replaceAll('-', ''), 'hex').toString('base64url')}`);
    }
    expect(toRedisText('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBe('\x01_____________________w');
    expect(toRedisText('00000000-0000-0000-0000-000000000000')).toBe('\x01AAAAAAAAAAAAAAAAAAAAAA');
  });
});
