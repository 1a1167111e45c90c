import { randomBytes } from 'node:crypto';
import { masterKey, masterKeys, unwrapDataKey, weakMasterKeyReason, wrapDataKey } from './master-keys';
import { SealBrokenError } from './sealing';

describe('master keys', () => {
  const secret = randomBytes(32);

  it('are named by an id that is stable and reveals nothing of the key', () => {
    const { id } = masterKey(secret);
    expect(id).toMatch(/^mk_[0-9a-f]{16}$/);
    expect(masterKey(Buffer.from(secret)).id).toBe(id);
    expect(masterKey(randomBytes(32)).id).not.toBe(id);
    expect(secret.toString('hex')).not.toContain(id.slice(3));
  });

  it('refuse a key of the wrong length', () => {
    expect(() => masterKey(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('wrapping a tenant data key', () => {
  const old = masterKeys(randomBytes(32));
  const dataKey = randomBytes(32);
  const wrapped = wrapDataKey(old.current, 'tenant-a', 'dk_1', dataKey);

  it('names the master key and never holds the data key in clear', () => {
    expect(wrapped.masterKeyId).toBe(old.current.id);
    expect(Buffer.from(wrapped.wrappedKey.replace(/\./g, ''), 'base64url').includes(dataKey)).toBe(false);
    expect(unwrapDataKey(old, 'tenant-a', 'dk_1', [wrapped])).toEqual(dataKey);
  });

  it('unwraps with a previous master key after a rotation, preferring the newest wrapping it can open', () => {
    const rotated = masterKeys(randomBytes(32), [old.current.secret]);
    const rewrapped = wrapDataKey(rotated.current, 'tenant-a', 'dk_1', dataKey);
    expect(unwrapDataKey(rotated, 'tenant-a', 'dk_1', [wrapped])).toEqual(dataKey);
    expect(unwrapDataKey(masterKeys(rotated.current.secret), 'tenant-a', 'dk_1', [wrapped, rewrapped])).toEqual(dataKey);
  });

  it('answers null without a master key that wrapped it', () => {
    expect(unwrapDataKey(masterKeys(randomBytes(32)), 'tenant-a', 'dk_1', [wrapped])).toBeNull();
  });

  it('is bound to its tenant and key id', () => {
    expect(() => unwrapDataKey(old, 'tenant-b', 'dk_1', [wrapped])).toThrow(SealBrokenError);
    expect(() => unwrapDataKey(old, 'tenant-a', 'dk_2', [wrapped])).toThrow(SealBrokenError);
  });
});

describe('weakMasterKeyReason', () => {
  it.each([
    ['all zeros', Buffer.alloc(32), /too few distinct bytes \(1;/],
    ['one byte repeated', Buffer.alloc(32, 0xaa), /too few distinct bytes \(1;/],
    ['a short pattern repeated', Buffer.from('deadbeef'.repeat(8), 'hex'), /too few distinct bytes \(4;/],
    ['a 16-byte pattern twice', Buffer.concat([Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'), Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')]), /16-byte pattern/],
    ['a counting sequence', Buffer.from(Array.from({ length: 32 }, (_, i) => i)), /counting sequence/],
    ['a counting sequence that wraps', Buffer.from(Array.from({ length: 32 }, (_, i) => (250 + i * 3) % 256)), /counting sequence/],
    ['a typed phrase', Buffer.from('correct horse battery staple 123', 'utf8'), /printable text/],
  ])('refuses %s', (_, key, why) => {
    expect(weakMasterKeyReason(key)).toMatch(why);
  });

  it('accepts random keys', () => {
    for (let i = 0; i < 1_000; i += 1) expect(weakMasterKeyReason(randomBytes(32))).toBeNull();
  });
});
