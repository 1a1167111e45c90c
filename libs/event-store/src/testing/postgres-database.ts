import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, databaseUrlFor, dropDatabase } from '@ledger/platform';

/**
 * Fresh PostgreSQL databases for tests: each suite (or each app a suite
 * starts) gets a database of its own, created empty and dropped afterwards,
 * so runs and suites never see each other's events or blobs.
 *
 * The server is the one LEDGER_TEST_POSTGRES_URL names, else DATABASE_URL's
 * (a test run on PostgreSQL), else 127.0.0.1:5432 as `postgres`, where CI
 * starts one. Its role must be allowed to create databases.
 */
export const TEST_POSTGRES_URL =
  process.env.LEDGER_TEST_POSTGRES_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Every test database's name starts so, so leftovers of a killed run are recognisable. */
export const TEST_DATABASE_PREFIX = 'ledger_test_';

export interface TestDatabase {
  name: string;
  /** The URL of the new database, for DATABASE_URL. */
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** A new, empty database on the test server (with `icuLocale`, sorting text by that language: createDatabase). */
export async function createTestDatabase(options: { icuLocale?: string } = {}): Promise<TestDatabase> {
  const name = newTestDatabaseName();
  await createDatabase(TEST_POSTGRES_URL, name, options);
  return testDatabase(name);
}

/**
 * The same for callers that cannot wait (the e2e environment is built
 * synchronously by every suite): the database is created by a short child
 * process.
 */
export function createTestDatabaseSync(): TestDatabase {
  const name = newTestDatabaseName();
  const script = `
    const { Client } = require('pg');
    const client = new Client({ connectionString: process.argv[1] });
    client.connect()
      .then(() => client.query('CREATE DATABASE ${name}'))
      .finally(() => client.end())
      .catch((error) => { process.stderr.write(String(error) + '\\n'); process.exitCode = 1; });`;
  execFileSync(process.execPath, ['-e', script, TEST_POSTGRES_URL], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  return testDatabase(name);
}

function testDatabase(name: string): TestDatabase {
  return { name, url: databaseUrlFor(TEST_POSTGRES_URL, name), drop: () => dropDatabase(TEST_POSTGRES_URL, name) };
}

/**
 * A test database's name: the prefix, the creating process's id (how
 * dropAbandonedTestDatabases tells a live run's database from an abandoned
 * one) and random hex. Lower-case letters, digits and underscores only, so
 * the name needs no quoting.
 */
export function newTestDatabaseName(): string {
  return `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(6).toString('hex')}`;
}

/**
 * Drops the test databases whose creating process is gone (a run killed
 * before its suites could drop them), so repeated runs on one server do not
 * pile them up. Returns how many. A server that does not answer is left for
 * the suites to report.
 */
export async function dropAbandonedTestDatabases(): Promise<number> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  try {
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [TEST_DATABASE_PREFIX]);
    // A name that does not say which process made it is left alone: it may be a live run's.
    const abandoned = rows.map((row) => row.datname).filter((name) => {
      const owner = /^(\d+)_/.exec(name.slice(TEST_DATABASE_PREFIX.length));
      return owner !== null && !isRunning(Number(owner[1]));
    });
    for (const name of abandoned) await dropDatabase(TEST_POSTGRES_URL, name);
    return abandoned.length;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
