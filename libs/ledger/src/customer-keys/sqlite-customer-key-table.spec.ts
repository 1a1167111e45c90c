import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { customerKeyRecord, customerKeyTableContract } from './testing/customer-key-table.contract';
import { SqliteCustomerKeyTable } from './sqlite-customer-key-table';

// Integration: the adapter on a real SQLite file, as the service and the CLI open it.
describe('SqliteCustomerKeyTable', () => {
  let dir: string;
  let file: string;
  let table: SqliteCustomerKeyTable;
  const tenantId = randomUUID();
  const key = (customerId: string) => customerKeyRecord(tenantId, customerId);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'customer-keys-'));
    file = join(dir, 'customer-keys.sqlite');
    table = new SqliteCustomerKeyTable(file);
  });
  afterEach(async () => {
    await table.close();
    rmSync(dir, { recursive: true, force: true });
  });

  customerKeyTableContract(() => table);

  it('is a private file', () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
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

  it("leaves no byte of a destroyed report key in its files", async () => {
    const { customerId: reportId, ...erased } = key(randomUUID());
    await table.insertReportKey({ ...erased, reportId });
    expect(readFileSync(file).includes(Buffer.from(erased.wrappedKey!))).toBe(true);
    await table.destroyReportKey(tenantId, reportId, 5_000);
    expect(readFileSync(file).includes(Buffer.from(erased.wrappedKey!))).toBe(false);
  });

});
