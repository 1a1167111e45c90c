import { randomBytes, randomUUID } from 'node:crypto';
import { WrongExpectedVersionError } from '@ledger/event-store';
import { CustomerKeyRecord, CustomerKeyTable, ReportKeyRecord } from '../customer-key-table.port';

/** A record of a customer's key as the keyring writes one. */
export function customerKeyRecord(tenantId: string, customerId: string, overrides: Partial<CustomerKeyRecord> = {}): CustomerKeyRecord {
  return {
    tenantId,
    customerId,
    dataKeyId: `ck_${randomBytes(8).toString('hex')}`,
    tenantDataKeyId: 'dk_0123456789abcdef',
    wrappedKey: randomBytes(60).toString('base64url'),
    createdAt: 1_000,
    erasedAt: null,
    ...overrides,
  };
}

/**
 * What every key table adapter does (SQLite, PostgreSQL), run against each on
 * a real database: `current()` is the table of the test being run.
 */
export function customerKeyTableContract(current: () => CustomerKeyTable): void {
  const tenantId = randomUUID();
  const key = (customerId: string, overrides: Partial<CustomerKeyRecord> = {}) => customerKeyRecord(tenantId, customerId, overrides);
  let table: CustomerKeyTable;
  beforeEach(() => {
    table = current();
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

  it('tombstones a customer erased before it needed a key', async () => {
    const customerId = randomUUID();
    await table.destroy(tenantId, customerId, 7_000);
    expect(await table.find(tenantId, customerId)).toMatchObject({ dataKeyId: null, wrappedKey: null, erasedAt: 7_000 });
    expect(await table.insert(key(customerId))).toMatchObject({ dataKeyId: null, erasedAt: 7_000 });
  });

  it("keeps a report's first key, destroys it to a tombstone without touching another report's or the customers'", async () => {
    const reportKey = (reportId: string): ReportKeyRecord => {
      const { customerId, ...record } = key(reportId);
      return { ...record, reportId: customerId, dataKeyId: `rk_${randomBytes(8).toString('hex')}` };
    };
    const [erased, kept, customer] = [reportKey(randomUUID()), reportKey(randomUUID()), key(randomUUID())];
    expect(await table.insertReportKey(erased)).toEqual(erased);
    expect(await table.insertReportKey(reportKey(erased.reportId))).toEqual(erased);
    await table.insertReportKey(kept);
    await table.insert(customer);
    expect(await table.findReportKey(tenantId, erased.reportId)).toEqual(erased);
    expect(await table.findReportKey(randomUUID(), erased.reportId)).toBeNull();

    await table.destroyReportKey(tenantId, erased.reportId, 5_000);
    await table.destroyReportKey(tenantId, erased.reportId, 6_000);

    expect(await table.findReportKey(tenantId, erased.reportId)).toEqual({ ...erased, wrappedKey: null, erasedAt: 5_000 });
    expect(await table.findReportKey(tenantId, kept.reportId)).toEqual(kept);
    expect(await table.find(tenantId, customer.customerId)).toEqual(customer);
    // No key is created again for the erased report, nor for one erased before it had a key.
    expect(await table.insertReportKey(reportKey(erased.reportId))).toMatchObject({ wrappedKey: null, erasedAt: 5_000 });
    const neverKeyed = randomUUID();
    await table.destroyReportKey(tenantId, neverKeyed, 7_000);
    expect(await table.insertReportKey(reportKey(neverKeyed))).toMatchObject({ dataKeyId: null, wrappedKey: null, erasedAt: 7_000 });
  });
}
