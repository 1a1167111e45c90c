import { createTestDatabase, type TestDatabase } from '@ledger/event-store/testing';
import { customerKeyTableContract } from './testing/customer-key-table.contract';
import { PostgresCustomerKeyTable } from './postgres-customer-key-table';

// Integration: the adapter on a fresh database of the local PostgreSQL server, as the service opens it with DATABASE_URL.
describe('PostgresCustomerKeyTable', () => {
  let database: TestDatabase;
  let table: PostgresCustomerKeyTable;

  beforeAll(async () => {
    database = await createTestDatabase();
    table = new PostgresCustomerKeyTable(database.url);
    await table.opened();
  });
  afterAll(async () => {
    await table.close();
    await database.drop();
  });

  customerKeyTableContract(() => table);

  it('lets one of two processes claim a hash first, the other learning it lost', async () => {
    const other = new PostgresCustomerKeyTable(database.url);
    try {
      const tenantId = '7b0c6f3a-2f7e-4d1a-9a51-0c1d2e3f4a5b';
      const results = await Promise.allSettled(
        [table, other].map((t, i) => t.writeClaim(tenantId, 'identifier', 'race', { customerId: `c-${i}`, claimedAt: i }, 'no_stream')),
      );
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    } finally {
      await other.close();
    }
  });
});
