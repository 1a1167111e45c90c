import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrongExpectedVersionError } from '@ledger/event-store';
import { CustomerKeyRecord } from './customer-key-table.port';
import { SqliteCustomerKeyTable } from './sqlite-customer-key-table';

// Integration: the adapter on a real SQLite file, as the service and the CLI open it.
describe('SqliteCustomerKeyTable', () => {
  let dir: string;
  let file: string;
  let table: SqliteCustomerKeyTable;
  const tenantId = randomUUID();
  const key = (customerId: string, overrides: Partial<CustomerKeyRecord> = {}): CustomerKeyRecord => ({
    tenantId,
    customerId,
    dataKeyId: `ck_${randomBytes(8).toString('hex')}`,
    tenantDataKeyId: 'dk_0123456789abcdef',
    wrappedKey: randomBytes(60).toString('base64url'),
    createdAt: 1_000,
    erasedAt: null,
    ...overrides,
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'customer-keys-'));
    file = join(dir, 'customer-keys.sqlite');
    table = new SqliteCustomerKeyTable(file);
  });
  afterEach(async () => {
    await table.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a private file', () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps the first key recorded for a customer, found by customer and by key id', async () => {
    const customerId = randomUUID();
    const first = key(customerId);
    expect(await table.insert(first)).toEqual(first);
    expect(await table.insert(key(customerId))).toEqual(first);
    expect(await table.find(tenantId, customerId)).toEqual(first);
    expect(await table.findByKeyId(tenantId, first.dataKeyId!)).toEqual(first);
    expect(await table.findByKeyId(randomUUID(), first.dataKeyId!)).toBeNull();
    expect(await table.find(tenantId, randomUUID())).toBeNull();
  });

  it('claims a hash once with no_stream, and takes over a claim only at the revision read', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await table.writeClaim(tenantId, 'identifier', 'h1', { customerId: a, claimedAt: 1 }, 'no_stream');
    await expect(table.writeClaim(tenantId, 'identifier', 'h1', { customerId: b, claimedAt: 2 }, 'no_stream')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await table.readClaim(tenantId, 'identifier', 'h1')).toEqual({ customerId: a, claimedAt: 1, revision: 0 });
    // The same hash of another kind or tenant is another claim.
    expect(await table.readClaim(tenantId, 'user-reference', 'h1')).toBeNull();
    expect(await table.readClaim(randomUUID(), 'identifier', 'h1')).toBeNull();

    await table.writeClaim(tenantId, 'identifier', 'h1', { customerId: b, claimedAt: 3 }, 0);
    await expect(table.writeClaim(tenantId, 'identifier', 'h1', { customerId: a, claimedAt: 4 }, 0)).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await table.readClaim(tenantId, 'identifier', 'h1')).toEqual({ customerId: b, claimedAt: 3, revision: 1 });
  });

  it("destroys a customer's key and blind index entries, keeps a tombstone, and leaves other customers alone", async () => {
    const [erased, kept] = [key(randomUUID()), key(randomUUID())];
    await table.insert(erased);
    await table.insert(kept);
    await table.writeClaim(tenantId, 'identifier', 'erased-rut', { customerId: erased.customerId, claimedAt: 1 }, 'no_stream');
    await table.writeClaim(tenantId, 'user-reference', 'erased-ref', { customerId: erased.customerId, claimedAt: 1 }, 'no_stream');
    await table.writeClaim(tenantId, 'identifier', 'kept-rut', { customerId: kept.customerId, claimedAt: 1 }, 'no_stream');

    await table.destroy(tenantId, erased.customerId, 5_000);
    await table.destroy(tenantId, erased.customerId, 6_000);

    expect(await table.find(tenantId, erased.customerId)).toEqual({ ...erased, wrappedKey: null, erasedAt: 5_000 });
    expect(await table.readClaim(tenantId, 'identifier', 'erased-rut')).toBeNull();
    expect(await table.readClaim(tenantId, 'user-reference', 'erased-ref')).toBeNull();
    expect(await table.find(tenantId, kept.customerId)).toEqual(kept);
    expect(await table.readClaim(tenantId, 'identifier', 'kept-rut')).toMatchObject({ customerId: kept.customerId });
    // No key is created again for the erased customer.
    expect(await table.insert(key(erased.customerId))).toMatchObject({ wrappedKey: null, erasedAt: 5_000 });
  });

  it('leaves no byte of a destroyed key or index entry in its files', async () => {
    const erased = key(randomUUID());
    const kept = key(randomUUID());
    await table.insert(erased);
    await table.insert(kept);
    await table.writeClaim(tenantId, 'identifier', 'erased-index-entry-hash', { customerId: erased.customerId, claimedAt: 1 }, 'no_stream');
    await table.destroy(tenantId, erased.customerId, 5_000);

    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from(kept.wrappedKey!))).toBe(true);
    expect(bytes.includes(Buffer.from(erased.wrappedKey!))).toBe(false);
    expect(bytes.includes(Buffer.from('erased-index-entry-hash'))).toBe(false);
    expect(existsSync(`${file}-journal`)).toBe(false);
  });

  it('tombstones a customer erased before it needed a key', async () => {
    const customerId = randomUUID();
    await table.destroy(tenantId, customerId, 7_000);
    expect(await table.find(tenantId, customerId)).toMatchObject({ dataKeyId: null, wrappedKey: null, erasedAt: 7_000 });
    expect(await table.insert(key(customerId))).toMatchObject({ dataKeyId: null, erasedAt: 7_000 });
  });
});
