import type { Client, Pool, PoolClient } from 'pg';

/**
 * node-postgres, loaded the first time a PostgreSQL connection is opened:
 * a deployment on the embedded store never needs it, and every module
 * loaded stays in each process's memory (decision 0037).
 */
function pg(): typeof import('pg') {
  return require('pg') as typeof import('pg');
}

/** A single connection outside any pool (a listener, a server-level statement). */
export function createPostgresClient(connectionString: string, applicationName?: string): Client {
  const { Client: PgClient } = pg();
  return new PgClient({ connectionString, application_name: applicationName });
}

/**
 * What the PostgreSQL adapters (event store, blob store) share: one way to
 * open a pool and one way to apply versioned schema migrations.
 */

/** Connections per pool unless the caller says otherwise: a group commit holds one, reads and blob writes share the rest. */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;

export function createPostgresPool(connectionString: string, applicationName: string, max = DEFAULT_POSTGRES_POOL_SIZE): Pool {
  const { Pool: PgPool } = pg();
  const pool: Pool = new PgPool({ connectionString, max, application_name: applicationName });
  // An idle connection the server drops (restart, failover) emits 'error' on the pool;
  // unhandled it would end the process, handled the pool simply opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * One advisory lock for every component's migrations: two components
 * migrating at once from two processes could otherwise both create
 * `schema_versions` and collide on the catalog.
 */
const MIGRATION_LOCK = 'ledger-schema-migrations';

/** Migrations of one component, applied in order; never edit one that shipped, append a new one. */
export interface PostgresMigrations {
  /** The component's name in `schema_versions` (e.g. `event-store`, `blob-store`). */
  component: string;
  steps: readonly string[];
}

/**
 * Brings a component's tables to the code's version, at start. Several
 * processes may start at once (two APIs and a worker): a session advisory
 * lock lets one of them apply the missing
 * steps while the others wait, then find nothing left to do. Each step
 * commits together with the version it reaches, so a crash mid-way resumes
 * at the first step not applied.
 */
export async function migratePostgres(pool: Pool, migrations: PostgresMigrations): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_versions (component text PRIMARY KEY, version integer NOT NULL)',
      );
      const applied = await appliedVersion(client, migrations.component);
      if (applied > migrations.steps.length) {
        throw new Error(
          `${migrations.component} schema version ${applied} is newer than this code (${migrations.steps.length})`,
        );
      }
      for (let version = applied + 1; version <= migrations.steps.length; version += 1) {
        await client.query('BEGIN');
        try {
          await client.query(migrations.steps[version - 1]);
          await client.query(
            `INSERT INTO schema_versions (component, version) VALUES ($1, $2)
             ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`,
            [migrations.component, version],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

async function appliedVersion(client: PoolClient, component: string): Promise<number> {
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_versions WHERE component = $1', [component]);
  return rows[0]?.version ?? 0;
}

/** Names of databases this code creates (tests, benchmarks): plain identifiers that need no quoting. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL of the database `name` on the server `serverUrl` names (same host, port, role and options). */
export function databaseUrlFor(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates an empty database on the server (the role must be allowed to);
 * with `icuLocale`, one whose text sorts by that language's ICU collation
 * rather than the server's default, as a bank's database may.
 */
export async function createDatabase(serverUrl: string, name: string, options: { icuLocale?: string } = {}): Promise<void> {
  const { icuLocale } = options;
  if (icuLocale !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(icuLocale)) throw new Error(`not an ICU locale: ${JSON.stringify(icuLocale)}`);
  const collation = icuLocale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${icuLocale}'`;
  await onServer(serverUrl, `CREATE DATABASE ${assertDatabaseName(name)}${collation}`);
}

/** Drops the database, ending the connections still open to it. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, `DROP DATABASE IF EXISTS ${assertDatabaseName(name)} WITH (FORCE)`);
}

function assertDatabaseName(name: string): string {
  if (!DATABASE_NAME.test(name)) throw new Error(`not a plain database name: ${JSON.stringify(name)}`);
  return name;
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = createPostgresClient(serverUrl);
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Whether a query failed on the named unique constraint (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string } | undefined;
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
