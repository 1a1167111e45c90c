import { Client, types } from 'pg';

const JSON_TYPES = new Set([114, 3802]);

/**
 * Every table of the database's public schema and every value its rows hold,
 * as bytes (bytea as stored, json as its stored text): what a scan of
 * PostgreSQL for a value reads. Live rows only: a deleted row's bytes stay
 * in the table's pages until VACUUM (decision 0035), which a query cannot see.
 */
export async function postgresContents(url: string): Promise<{ tables: string[]; values: Buffer[] }> {
  const client = new Client({
    connectionString: url,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (JSON_TYPES.has(oid) ? (text: string) => text : types.getTypeParser(oid, format as 'text'))) as typeof types.getTypeParser },
  });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
    const tables = rows.map((row) => row.tablename);
    const values: Buffer[] = [];
    for (const table of tables) {
      for (const row of (await client.query(`SELECT * FROM "${table}"`)).rows) {
        for (const value of Object.values(row)) values.push(Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'string' ? value : String(JSON.stringify(value))));
      }
    }
    return { tables, values };
  } finally {
    await client.end();
  }
}
