import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { CompactRange, Subtree } from '@ledger/transparency';
import type { LedgerLog, LogLeaf, StoredCheckpoint, StoredCosignature } from '../event-store.port';
import { INTEGRATION_BATCH, KeptHashes, KeptSubtree, addKept, foldKept, integrateLeaves, keptRangesFor, rangeSubtrees } from '../log-tree';

/** Leaves inserted by one statement at most (3 parameters each, far below SQLite's limit). */
const LEAVES_PER_INSERT = 100;

interface LeafRow {
  leaf_index: number;
  event_id: string;
  leaf: Buffer;
}

interface CheckpointRow {
  size: number;
  root: Buffer;
  note: string;
  issued_at: number;
}

/**
 * The ledger's tree and checkpoints in the embedded store's file (decision
 * 0058). Reads are synchronous underneath, so the store's writer uses the
 * same reads inside its transactions.
 */
export class SqliteLedgerLog implements LedgerLog {
  private readonly statements: ReturnType<typeof prepareStatements>;
  /** Multi-row leaf inserts, by row count. */
  private readonly leafInserts = new Map<number, Database.Statement>();
  /** Integrates up to INTEGRATION_BATCH leaves in one write transaction; returns the tree's size after it. */
  private readonly integrateBatch: () => number;

  constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
    this.integrateBatch = db.transaction(() => this.integrateInTransaction()).immediate;
  }

  async size(): Promise<number> {
    return this.statements.size.get() as number;
  }

  /** The number of leaves stored, integrated or not: the next leaf's index. */
  leafCountNow(): number {
    return this.statements.leafCount.get() as number;
  }

  async integrate(): Promise<number> {
    let size = await this.size();
    // A batch at a time, letting the event loop (and the writers queued on it) run in between.
    for (let next = this.integrateBatch(); next !== size; next = this.integrateBatch()) {
      size = next;
      await nextTurn();
    }
    return size;
  }

  /** Integrates every leaf stored, batch after batch, without letting anything else run (a store's build when it opens). */
  integrateNow(): number {
    let size = this.statements.size.get() as number;
    for (let next = this.integrateBatch(); next !== size; next = this.integrateBatch()) size = next;
    return size;
  }

  /** Integrates up to `limit` leaves inside the caller's write transaction; returns the tree's size after it. */
  integrateInTransaction(limit = INTEGRATION_BATCH): number {
    const size = this.statements.size.get() as number;
    const end = Math.min(this.leafCountNow(), size + limit);
    if (end <= size) return size;
    const leaves = this.statements.leafBytes.all(size, end) as Buffer[];
    // Leaves are stored without gaps: one missing was removed, and the tree must not be built past it.
    if (leaves.length !== end - size) throw new Error(`the ledger's tree is missing leaves between ${size} and ${end}`);
    const range = CompactRange.of(size, this.subtreeHashesNow(rangeSubtrees(size)));
    this.storeKept(integrateLeaves(range, leaves));
    this.statements.setSize.run(end);
    return end;
  }

  async subtreeHashes(subtrees: readonly Subtree[]): Promise<Buffer[]> {
    return this.subtreeHashesNow(subtrees);
  }

  private subtreeHashesNow(subtrees: readonly Subtree[]): Buffer[] {
    const kept: KeptHashes = new Map();
    for (const { level, start, end } of keptRangesFor(subtrees)) {
      const rows = level === 0 ? this.statements.leafRange.all(start, end) : this.statements.keptRange.all(level, start, end);
      addKept(kept, level, rows as Array<[number, Buffer]>);
    }
    return foldKept(subtrees, kept);
  }

  /** The position of the last event with a leaf (0 when none): every later event has none yet. */
  lastLeafPosition(): number {
    return this.statements.lastLeafPosition.get() as number;
  }

  /**
   * Stores leaves given flat, `[leafIndex, position, leaf, ...]`, up to
   * LEAVES_PER_INSERT a statement: one call per event would cost an append
   * as much again as the leaf's own work.
   */
  storeLeaves(flat: readonly unknown[]): void {
    for (let at = 0; at < flat.length; at += 3 * LEAVES_PER_INSERT) {
      const chunk = flat.slice(at, at + 3 * LEAVES_PER_INSERT);
      this.insertLeaves(chunk.length / 3).run(...chunk);
    }
  }

  private insertLeaves(rows: number): Database.Statement {
    let statement = this.leafInserts.get(rows);
    if (statement === undefined) {
      statement = this.db.prepare(`INSERT INTO log_leaves (leaf_index, position, leaf) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}`);
      this.leafInserts.set(rows, statement);
    }
    return statement;
  }

  private storeKept(subtrees: readonly KeptSubtree[]): void {
    for (const { level, index, hash } of subtrees) this.statements.insertKept.run(level, index, hash);
  }

  async leaves(start: number, end: number): Promise<LogLeaf[]> {
    return (this.statements.leaves.all(start, end) as LeafRow[]).map(toLeaf);
  }

  async leavesOf(eventIds: readonly string[]): Promise<Array<LogLeaf & { tenantId: string | null }>> {
    const events = this.statements.eventsOf.all(JSON.stringify(eventIds)) as Array<{ position: number; event_id: string; tenant_id: string | null }>;
    const size = this.leafCountNow();
    const found: Array<LogLeaf & { tenantId: string | null }> = [];
    for (const event of events) {
      const leafIndex = this.leafIndexAt(event.position, size);
      if (leafIndex === undefined) continue;
      found.push({ leafIndex, eventId: event.event_id, leaf: this.statements.leafAt.get(leafIndex) as Buffer, tenantId: event.tenant_id });
    }
    return found.sort((a, b) => a.leafIndex - b.leafIndex);
  }

  /** The leaf index of the event at `position`, bisecting the leaves (in position order); undefined when it has none. */
  private leafIndexAt(position: number, size: number): number | undefined {
    let low = 0;
    let high = size - 1;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const at = this.statements.positionAt.get(middle) as number | undefined;
      if (at === undefined) return undefined;
      if (at === position) return middle;
      if (at < position) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  async addCheckpoint({ size, root, note, issuedAt }: StoredCheckpoint): Promise<boolean> {
    return this.statements.insertCheckpoint.run(size, root, note, issuedAt).changes === 1;
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = this.statements.latestCheckpoint.get() as CheckpointRow | undefined;
    return row === undefined ? undefined : toCheckpoint(row);
  }

  async checkpoints(): Promise<StoredCheckpoint[]> {
    return (this.statements.checkpoints.all() as CheckpointRow[]).map(toCheckpoint);
  }

  async addCosignature({ size, witness, line, cosignedAt }: StoredCosignature): Promise<void> {
    this.statements.insertCosignature.run(size, witness, line, cosignedAt);
  }

  async cosignatures(size: number): Promise<StoredCosignature[]> {
    return (this.statements.cosignatures.all(size) as Array<{ size: number; witness: string; line: string; cosigned_at: number }>).map((row) => ({
      size: row.size,
      witness: row.witness,
      line: row.line,
      cosignedAt: row.cosigned_at,
    }));
  }

  async lastCosignedSize(witness: string): Promise<number> {
    return this.statements.lastCosigned.get(witness) as number;
  }
}

function prepareStatements(db: Database.Database) {
  return {
    size: db.prepare('SELECT size FROM log_tree').pluck(),
    setSize: db.prepare('UPDATE log_tree SET size = ?'),
    leafCount: db.prepare('SELECT COALESCE(MAX(leaf_index) + 1, 0) FROM log_leaves').pluck(),
    leafBytes: db.prepare('SELECT leaf FROM log_leaves WHERE leaf_index >= ? AND leaf_index < ? ORDER BY leaf_index').pluck(),
    lastLeafPosition: db.prepare('SELECT COALESCE((SELECT position FROM log_leaves ORDER BY leaf_index DESC LIMIT 1), 0)').pluck(),
    positionAt: db.prepare('SELECT position FROM log_leaves WHERE leaf_index = ?').pluck(),
    leafAt: db.prepare('SELECT leaf FROM log_leaves WHERE leaf_index = ?').pluck(),
    eventsOf: db.prepare(
      `SELECT position, event_id, json_extract(metadata, '$.tenantId') AS tenant_id FROM events WHERE event_id IN (SELECT value FROM json_each(?))`,
    ),
    leafRange: db.prepare('SELECT leaf_index, leaf FROM log_leaves WHERE leaf_index >= ? AND leaf_index < ?').raw(),
    keptRange: db.prepare('SELECT idx, hash FROM log_subtrees WHERE level = ? AND idx >= ? AND idx < ?').raw(),
    insertKept: db.prepare('INSERT INTO log_subtrees (level, idx, hash) VALUES (?, ?, ?)'),
    // A leaf whose event is no longer there is not answered: no event holds it.
    leaves: db.prepare(
      `SELECT l.leaf_index, e.event_id, l.leaf FROM log_leaves l JOIN events e ON e.position = l.position
       WHERE l.leaf_index >= ? AND l.leaf_index < ? ORDER BY l.leaf_index`,
    ),
    insertCheckpoint: db.prepare('INSERT INTO log_checkpoints (size, root, note, issued_at) VALUES (?, ?, ?, ?) ON CONFLICT (size) DO NOTHING'),
    latestCheckpoint: db.prepare('SELECT size, root, note, issued_at FROM log_checkpoints ORDER BY size DESC LIMIT 1'),
    checkpoints: db.prepare('SELECT size, root, note, issued_at FROM log_checkpoints ORDER BY size'),
    insertCosignature: db.prepare(
      'INSERT INTO log_cosignatures (size, witness, line, cosigned_at) VALUES (?, ?, ?, ?) ON CONFLICT (size, witness) DO NOTHING',
    ),
    cosignatures: db.prepare('SELECT size, witness, line, cosigned_at FROM log_cosignatures WHERE size = ? ORDER BY witness'),
    lastCosigned: db.prepare('SELECT COALESCE(MAX(size), 0) FROM log_cosignatures WHERE witness = ?').pluck(),
  };
}

function toLeaf(row: LeafRow): LogLeaf {
  return { leafIndex: row.leaf_index, eventId: row.event_id, leaf: row.leaf };
}

function toCheckpoint(row: CheckpointRow): StoredCheckpoint {
  return { size: row.size, root: row.root, note: row.note, issuedAt: row.issued_at };
}
