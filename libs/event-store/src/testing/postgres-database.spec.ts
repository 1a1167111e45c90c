import { createDatabase, dropDatabase } from '@ledger/platform';
import { Client } from 'pg';
import { TEST_DATABASE_PREFIX, TEST_POSTGRES_URL, dropAbandonedTestDatabases, newTestDatabaseName } from './postgres-database';

async function databaseExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('dropAbandonedTestDatabases', () => {
  // A process id no Linux system hands out (pid_max is at most 2^22).
  const gone = `${TEST_DATABASE_PREFIX}99999999_${Date.now()}`;
  // Named without its creator's id: a live run's database must never be taken for an abandoned one.
  const unattributed = `${TEST_DATABASE_PREFIX}${Date.now().toString(16)}abc`;
  const ours = newTestDatabaseName();

  afterAll(async () => {
    for (const name of [gone, unattributed, ours]) await dropDatabase(TEST_POSTGRES_URL, name);
  });

  it("drops only the databases whose name says their creating process is gone", async () => {
    for (const name of [gone, unattributed, ours]) await createDatabase(TEST_POSTGRES_URL, name);
    await dropAbandonedTestDatabases();
    expect(await databaseExists(gone)).toBe(false);
    expect(await databaseExists(unattributed)).toBe(true);
    expect(await databaseExists(ours)).toBe(true);
    expect(ours.startsWith(`${TEST_DATABASE_PREFIX}${process.pid}_`)).toBe(true);
  });
});
