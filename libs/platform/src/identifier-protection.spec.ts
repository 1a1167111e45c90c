import { IdentifierProtection } from './identifier-protection';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from './testing';

describe('IdentifierProtection', () => {
  const protection = new IdentifierProtection(ephemeralTenantKeys(), ephemeralCustomerKeys());

  it('hashes deterministically per tenant and purpose', async () => {
    const hash = await protection.hash('tenant-a', 'rut', '12345678-5');
    expect(await protection.hash('tenant-a', 'rut', '12345678-5')).toBe(hash);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await protection.hash('tenant-b', 'rut', '12345678-5')).not.toBe(hash);
    expect(await protection.hash('tenant-a', 'email', '12345678-5')).not.toBe(hash);
    expect(await protection.hash('tenant-a', 'rut', '12345678-6')).not.toBe(hash);
  });

  it("depends on the tenant's data key", async () => {
    const other = new IdentifierProtection(ephemeralTenantKeys(), ephemeralCustomerKeys());
    expect(await other.hash('tenant-a', 'rut', 'x')).not.toBe(await protection.hash('tenant-a', 'rut', 'x'));
  });

  it("round-trips a ciphertext that names the tenant's data key and never contains the plaintext", async () => {
    const sealed = await protection.encrypt('tenant-a', 'ana@example.cl');
    expect(sealed).toMatch(/^v2\.dk_[0-9a-f]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('ana');
    expect(await protection.decrypt('tenant-a', sealed)).toBe('ana@example.cl');
    expect(await protection.encrypt('tenant-a', 'ana@example.cl')).not.toBe(sealed);
  });

  it('detects tampering with any part', async () => {
    const sealed = await protection.encrypt('tenant-a', 'ana@example.cl');
    const parts = sealed.split('.');
    for (const index of [2, 3, 4]) {
      const altered = [...parts];
      const bytes = Buffer.from(altered[index], 'base64url');
      bytes[0] ^= 1;
      altered[index] = bytes.toString('base64url');
      await expect(protection.decrypt('tenant-a', altered.join('.'))).rejects.toThrow();
    }
    await expect(protection.decrypt('tenant-a', `v1.${parts.slice(2).join('.')}`)).rejects.toThrow(/unknown format/);
    await expect(protection.decrypt('tenant-a', ['v2', 'dk_0000000000000000', ...parts.slice(2)].join('.'))).rejects.toThrow(/dk_0000000000000000/);
  });

  it('does not decrypt under another tenant', async () => {
    const sealed = await protection.encrypt('tenant-a', 'ana@example.cl');
    await expect(protection.decrypt('tenant-b', sealed)).rejects.toThrow(/not under this tenant's/);
  });
});

