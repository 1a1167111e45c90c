import { IdentifierProtection } from './identifier-protection';

const masterKey = Buffer.alloc(32, 7);

describe('IdentifierProtection', () => {
  const protection = new IdentifierProtection(masterKey);

  it('hashes deterministically per tenant and purpose', () => {
    const hash = protection.hash('tenant-a', 'rut', '12345678-5');
    expect(protection.hash('tenant-a', 'rut', '12345678-5')).toBe(hash);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(protection.hash('tenant-b', 'rut', '12345678-5')).not.toBe(hash);
    expect(protection.hash('tenant-a', 'email', '12345678-5')).not.toBe(hash);
    expect(protection.hash('tenant-a', 'rut', '12345678-6')).not.toBe(hash);
  });

  it('depends on the master key', () => {
    const other = new IdentifierProtection(Buffer.alloc(32, 8));
    expect(other.hash('tenant-a', 'rut', 'x')).not.toBe(protection.hash('tenant-a', 'rut', 'x'));
  });

  it('round-trips a ciphertext that never contains the plaintext', () => {
    const sealed = protection.encrypt('tenant-a', 'ana@example.cl');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('ana');
    expect(protection.decrypt('tenant-a', sealed)).toBe('ana@example.cl');
    expect(protection.encrypt('tenant-a', 'ana@example.cl')).not.toBe(sealed);
  });

  it('detects tampering with any part', () => {
    const sealed = protection.encrypt('tenant-a', 'ana@example.cl');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const altered = [...parts];
      const bytes = Buffer.from(altered[index], 'base64url');
      bytes[0] ^= 1;
      altered[index] = bytes.toString('base64url');
      expect(() => protection.decrypt('tenant-a', altered.join('.'))).toThrow();
    }
    expect(() => protection.decrypt('tenant-a', `v2.${parts.slice(1).join('.')}`)).toThrow(/unknown format/);
  });

  it('does not decrypt under another tenant', () => {
    const sealed = protection.encrypt('tenant-a', 'ana@example.cl');
    expect(() => protection.decrypt('tenant-b', sealed)).toThrow(/authentication/);
  });

  it('refuses a master key of the wrong length', () => {
    expect(() => new IdentifierProtection(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
