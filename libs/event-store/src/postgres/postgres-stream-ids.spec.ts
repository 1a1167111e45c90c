import { Client } from 'pg';
import { createTestDatabase, newEvent, TestDatabase } from '../testing';
import { PostgresEventStore, STREAM_IDS_QUERY } from './postgres-event-store';

/** Enough events that a scan of the table would cost the planner far more than a walk of the index. */
const EVENTS = 100_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

// Against the real server, in a database whose text sorts as a language does (ICU en-US), as a bank's may:
// '-' is ignored at first and 'a' sorts before 'B' there, so a prefix is not a range of that order.
describe('PostgreSQL: streams listed by prefix', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase({ icuLocale: 'en-US' });
    store = new PostgresEventStore(database.url);
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await store?.close();
    await database?.drop();
  });

  it('lists by byte order whatever the database collation is', async () => {
    const listed = ['kind-b', 'kind-a', 'kind-a-1', 'kind-B', 'kind-%_'];
    for (const streamId of [...listed, 'kind', 'kind,', 'kind.', 'kindx-a', 'kinda']) await store.append(streamId, [newEvent()], 'no_stream');
    expect(await store.streamIds('kind-')).toEqual(['kind-%_', 'kind-B', 'kind-a', 'kind-a-1', 'kind-b']);
    const { rows } = await client.query<{ collation_name: string }>(`SELECT collation_name FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'stream_id'`);
    expect(rows).toEqual([{ collation_name: 'C' }]);
  });

  it('walks the index of stream ids, never the table of events', async () => {
    // Rows, not hashed events: the plan depends on how many rows the table holds, not on their content.
    await client.query(
      `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash)
       SELECT 'bulk-' || i, CASE WHEN i % 1000 = 0 THEN 'tenant-' ELSE 'customer-' END || i, 0, 'Bulk', '{}', '{}', 0, ''
       FROM generate_series(1, $1) AS i`,
      [EVENTS],
    );
    await client.query('ANALYZE events');
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${STREAM_IDS_QUERY}`, ['tenant-', 'tenant.']);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(nodes.filter((node) => node['Index Name'] === 'events_stream_revision_unique')).toHaveLength(1);
    expect(await store.streamIds('tenant-')).toHaveLength(EVENTS / 1000);
  });
});
