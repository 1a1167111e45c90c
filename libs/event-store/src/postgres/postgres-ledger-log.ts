import type { Pool, PoolClient } from 'pg';
import { CompactRange, Subtree } from '@ledger/transparency';
import type { LedgerLog, LogLeaf, StoredCheckpoint, StoredCosignature } from '../event-store.port';
import { INTEGRATION_BATCH, KeptHashes, KeptSubtree, addKept, foldKept, integrateLeaves, keptRangesFor, rangeSubtrees } from '../log-tree';

type Queryable = Pool | PoolClient;

/**
 * Every kept hash asked for, leaves (level 0) and kept subtrees alike, in one
 * round trip, by (level, index) on the primary keys. Not by ranges: the
 * planner cannot tell how many rows a range given as a parameter holds, so it
 * guessed a share of the table, a cost that grew with the ledger until every
 * proof paid for PostgreSQL's JIT compilation (decision 0090). A pair on a
 * primary key is one row to the planner, whatever the table's size.
 */
const SELECT_KEPT = `
  SELECT 0 AS level, leaf_index AS idx, leaf AS hash FROM log_leaves WHERE leaf_index = ANY($1::bigint[])
  UNION ALL
  SELECT k.level, k.idx, k.hash
  FROM unnest($2::int[], $3::bigint[]) AS r (level, idx)
  JOIN log_subtrees k ON k.level = r.level AND k.idx = r.idx`;
const INSERT_KEPT = `INSERT INTO log_subtrees (level, idx, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])`;
const SIZE = 'SELECT size FROM log_tree';

interface CheckpointRow {
  size: string;
  root: Buffer;
  note: string;
  issued_at: string;
}

/**
 * The ledger's tree and checkpoints in PostgreSQL (decision 0058); the
 * store's writer stores the leaves, and its build integrates them
 * (`integrateOn`) before the store is ready.
 */
export class PostgresLedgerLog implements LedgerLog {
  constructor(
    private readonly pool: Pool,
    private readonly ready: Promise<void>,
  ) {}

  async size(): Promise<number> {
    await this.ready;
    return sizeOn(this.pool);
  }

  async integrate(): Promise<number> {
    await this.ready;
    return integrateOn(this.pool);
  }

  async subtreeHashes(subtrees: readonly Subtree[]): Promise<Buffer[]> {
    await this.ready;
    return subtreeHashesOn(this.pool, subtrees);
  }

  async leaves(start: number, end: number): Promise<LogLeaf[]> {
    await this.ready;
    const { rows } = await this.pool.query<{ leaf_index: string; event_id: string; leaf: Buffer }>(
      // A leaf whose event is no longer there is not answered: no event holds it.
      `SELECT l.leaf_index, e.event_id, l.leaf FROM log_leaves l JOIN events e ON e.position = l.position
       WHERE l.leaf_index >= $1 AND l.leaf_index < $2 ORDER BY l.leaf_index`,
      [start, end],
    );
    return rows.map(toLeaf);
  }

  async leavesOf(eventIds: readonly string[]): Promise<Array<LogLeaf & { tenantId: string | null }>> {
    await this.ready;
    const { rows } = await this.pool.query<{ leaf_index: string; event_id: string; leaf: Buffer; tenant_id: string | null }>(
      `SELECT l.leaf_index, e.event_id, l.leaf, e.metadata->>'tenantId' AS tenant_id
       FROM events e JOIN log_leaves l ON l.position = e.position
       WHERE e.event_id = ANY($1) ORDER BY l.leaf_index`,
      [eventIds],
    );
    return rows.map((row) => ({ ...toLeaf(row), tenantId: row.tenant_id }));
  }

  async addCheckpoint({ size, root, note, issuedAt }: StoredCheckpoint): Promise<boolean> {
    await this.ready;
    const { rowCount } = await this.pool.query(
      'INSERT INTO log_checkpoints (size, root, note, issued_at) VALUES ($1, $2, $3, $4) ON CONFLICT (size) DO NOTHING',
      [size, root, note, issuedAt],
    );
    return rowCount === 1;
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    await this.ready;
    const { rows } = await this.pool.query<CheckpointRow>('SELECT size, root, note, issued_at FROM log_checkpoints ORDER BY size DESC LIMIT 1');
    return rows.length === 0 ? undefined : toCheckpoint(rows[0]);
  }

  async checkpoints(): Promise<StoredCheckpoint[]> {
    await this.ready;
    const { rows } = await this.pool.query<CheckpointRow>('SELECT size, root, note, issued_at FROM log_checkpoints ORDER BY size');
    return rows.map(toCheckpoint);
  }

  async addCosignature({ size, witness, line, cosignedAt }: StoredCosignature): Promise<void> {
    await this.ready;
    await this.pool.query(
      'INSERT INTO log_cosignatures (size, witness, line, cosigned_at) VALUES ($1, $2, $3, $4) ON CONFLICT (size, witness) DO NOTHING',
      [size, witness, line, cosignedAt],
    );
  }

  async cosignatures(size: number): Promise<StoredCosignature[]> {
    await this.ready;
    const { rows } = await this.pool.query<{ size: string; witness: string; line: string; cosigned_at: string }>(
      'SELECT size, witness, line, cosigned_at FROM log_cosignatures WHERE size = $1 ORDER BY witness',
      [size],
    );
    return rows.map((row) => ({ size: Number(row.size), witness: row.witness, line: row.line, cosignedAt: Number(row.cosigned_at) }));
  }

  async lastCosignedSize(witness: string): Promise<number> {
    await this.ready;
    const { rows } = await this.pool.query<{ size: string }>('SELECT COALESCE(MAX(size), 0) AS size FROM log_cosignatures WHERE witness = $1', [witness]);
    return Number(rows[0].size);
  }
}

async function sizeOn(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ size: string }>(SIZE);
  return Number(rows[0].size);
}

async function subtreeHashesOn(db: Queryable, subtrees: readonly Subtree[]): Promise<Buffer[]> {
  const query = keptHashesQuery(subtrees);
  if (query === undefined) return [];
  const { rows } = await db.query<{ level: number; idx: string; hash: Buffer }>(query.text, query.values);
  const hashes: KeptHashes = new Map();
  for (const row of rows) addKept(hashes, row.level, [[Number(row.idx), row.hash]]);
  return foldKept(subtrees, hashes);
}

/**
 * The query reading the kept hashes `subtrees` are folded from (undefined
 * when there are none): each range a few hashes wide, listed one by one.
 */
export function keptHashesQuery(subtrees: readonly Subtree[]): { text: string; values: [number[], number[], number[]] } | undefined {
  const ranges = keptRangesFor(subtrees);
  if (ranges.length === 0) return undefined;
  const leaves: number[] = [];
  const levels: number[] = [];
  const indexes: number[] = [];
  for (const { level, start, end } of ranges) {
    for (let index = start; index < end; index += 1) {
      if (level === 0) leaves.push(index);
      else {
        levels.push(level);
        indexes.push(index);
      }
    }
  }
  return { text: SELECT_KEPT, values: [leaves, levels, indexes] };
}

/**
 * Integrates the leaves stored after the tree's size, INTEGRATION_BATCH a
 * transaction, and returns the size after it. The tree's row is locked
 * first, so integrations of several processes take turns; appends do not
 * wait for them.
 */
export async function integrateOn(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    for (;;) {
      await client.query('BEGIN');
      const { rows: tree } = await client.query<{ size: string }>('SELECT size FROM log_tree FOR UPDATE');
      const size = Number(tree[0].size);
      const { rows } = await client.query<{ leaf_index: string; leaf: Buffer }>(
        'SELECT leaf_index, leaf FROM log_leaves WHERE leaf_index >= $1 AND leaf_index < $2 ORDER BY leaf_index',
        [size, size + INTEGRATION_BATCH],
      );
      // Leaves are stored without gaps, a committed prefix at a time: one missing was removed, and the tree must not be built past it.
      const gap = rows.findIndex((row, i) => Number(row.leaf_index) !== size + i);
      if (gap >= 0) throw new Error(`the ledger's tree is missing the leaf at index ${size + gap}`);
      if (rows.length > 0) {
        await storeKeptOn(client, integrateLeaves(await rangeOn(client, size), rows.map((row) => row.leaf)));
        await client.query('UPDATE log_tree SET size = $1', [size + rows.length]);
      }
      await client.query('COMMIT');
      if (rows.length < INTEGRATION_BATCH) return size + rows.length;
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The tree as the database holds it at `size`: its compact range. */
async function rangeOn(db: Queryable, size: number): Promise<CompactRange> {
  return CompactRange.of(size, await subtreeHashesOn(db, rangeSubtrees(size)));
}

async function storeKeptOn(db: Queryable, subtrees: readonly KeptSubtree[]): Promise<void> {
  if (subtrees.length === 0) return;
  await db.query(INSERT_KEPT, [subtrees.map((s) => s.level), subtrees.map((s) => s.index), subtrees.map((s) => s.hash)]);
}

function toLeaf(row: { leaf_index: string; event_id: string; leaf: Buffer }): LogLeaf {
  return { leafIndex: Number(row.leaf_index), eventId: row.event_id, leaf: row.leaf };
}

function toCheckpoint(row: CheckpointRow): StoredCheckpoint {
  return { size: Number(row.size), root: row.root, note: row.note, issuedAt: Number(row.issued_at) };
}
