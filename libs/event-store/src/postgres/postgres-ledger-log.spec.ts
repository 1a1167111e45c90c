import { Client } from 'pg';
import { inclusionProofPlan, subtreesNeeded } from '@ledger/transparency';
import { createTestDatabase, TestDatabase } from '../testing';
import { PostgresEventStore } from './postgres-event-store';
import { keptHashesQuery } from './postgres-ledger-log';

/** As many leaves as it takes for a guess of a share of the table to cost more than PostgreSQL's JIT threshold. */
const LEAVES = 300_000;

interface PlanNode {
  'Plan Rows': number;
  'Total Cost': number;
}

// Against the real server, on a table of leaves as a bulk load leaves it: no statistics gathered yet.
describe('PostgreSQL ledger log: the kept hashes of a proof', () => {
  let database: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    const store = new PostgresEventStore(database.url);
    await store.opened();
    await store.close();
    client = new Client({ connectionString: database.url });
    await client.connect();
    // Rows, not a tree: the plan depends on how many rows the tables hold, not on their hashes.
    await client.query(`INSERT INTO log_leaves (leaf_index, position, leaf) SELECT i, i + 1, '\\x00' FROM generate_series(0, $1 - 1) AS i`, [LEAVES]);
    await client.query(`INSERT INTO log_subtrees (level, idx, hash) SELECT 4, i, '\\x00' FROM generate_series(0, $1 / 16 - 1) AS i`, [LEAVES]);
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it.each([
    ['the oldest leaf', 10],
    ['the newest leaf', LEAVES - 2],
  ])('are read at a cost that does not grow with the ledger, below the JIT threshold (%s)', async (_, leafIndex) => {
    const query = keptHashesQuery(subtreesNeeded(inclusionProofPlan(leafIndex, LEAVES)))!;
    const asked = query.values[0].length + query.values[1].length;
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${query.text}`, query.values);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    const { rows: threshold } = await client.query<{ jit_above_cost: string }>('SHOW jit_above_cost');

    expect(plan['Plan Rows']).toBeLessThanOrEqual(2 * asked);
    expect(plan['Total Cost']).toBeLessThan(Number(threshold[0].jit_above_cost));
  });
});
