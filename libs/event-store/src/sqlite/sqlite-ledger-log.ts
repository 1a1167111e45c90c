import type Database from 'better-sqlite3';
import { CompactRange, Subtree } from '@ledger/transparency';
import type { LedgerLog, LogLeaf, StoredCheckpoint, StoredCosignature } from '../event-store.port';
import { KeptHashes, KeptSubtree, addKept, foldKept, keptRangesFor, rangeSubtrees } from '../log-tree';

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

  constructor(db: Database.Database) {
    this.statements = prepareStatements(db);
  }

  async size(): Promise<number> {
    return this.sizeNow();
  }

  sizeNow(): number {
    return this.statements.size.get() as number;
  }

  async subtreeHashes(subtrees: readonly Subtree[]): Promise<Buffer[]> {
    return this.subtreeHashesNow(subtrees);
  }

  subtreeHashesNow(subtrees: readonly Subtree[]): Buffer[] {
    const kept: KeptHashes = new Map();
    for (const { level, start, end } of keptRangesFor(subtrees)) {
      const rows = level === 0 ? this.statements.leafRange.all(start, end) : this.statements.keptRange.all(level, start, end);
      addKept(kept, level, rows as Array<[number, Buffer]>);
    }
    return foldKept(subtrees, kept);
  }

  /** The tree as it stands in the file: its compact range. */
  rangeNow(): CompactRange {
    const size = this.sizeNow();
    return CompactRange.of(size, this.subtreeHashesNow(rangeSubtrees(size)));
  }

  /** The position of the last event with a leaf (0 when none): every later event has none yet. */
  lastLeafPosition(): number {
    return this.statements.lastLeafPosition.get() as number;
  }

  storeLeaf(leafIndex: number, position: number, leaf: Buffer): void {
    this.statements.insertLeaf.run(leafIndex, position, leaf);
  }

  storeKept(subtrees: readonly KeptSubtree[]): void {
    for (const { level, index, hash } of subtrees) this.statements.insertKept.run(level, index, hash);
  }

  async leaves(start: number, end: number): Promise<LogLeaf[]> {
    return (this.statements.leaves.all(start, end) as LeafRow[]).map(toLeaf);
  }

  async leavesOf(eventIds: readonly string[]): Promise<Array<LogLeaf & { tenantId: string | null }>> {
    return (this.statements.leavesOf.all(JSON.stringify(eventIds)) as Array<LeafRow & { tenant_id: string | null }>).map((row) => ({
      ...toLeaf(row),
      tenantId: row.tenant_id,
    }));
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
    size: db.prepare('SELECT COALESCE(MAX(leaf_index) + 1, 0) FROM log_leaves').pluck(),
    lastLeafPosition: db.prepare('SELECT COALESCE(MAX(position), 0) FROM log_leaves').pluck(),
    insertLeaf: db.prepare('INSERT INTO log_leaves (leaf_index, position, leaf) VALUES (?, ?, ?)'),
    leafRange: db.prepare('SELECT leaf_index, leaf FROM log_leaves WHERE leaf_index >= ? AND leaf_index < ?').raw(),
    keptRange: db.prepare('SELECT idx, hash FROM log_subtrees WHERE level = ? AND idx >= ? AND idx < ?').raw(),
    insertKept: db.prepare('INSERT INTO log_subtrees (level, idx, hash) VALUES (?, ?, ?)'),
    // A leaf whose event is no longer there is not answered: no event holds it.
    leaves: db.prepare(
      `SELECT l.leaf_index, e.event_id, l.leaf FROM log_leaves l JOIN events e ON e.position = l.position
       WHERE l.leaf_index >= ? AND l.leaf_index < ? ORDER BY l.leaf_index`,
    ),
    leavesOf: db.prepare(
      `SELECT l.leaf_index, e.event_id, l.leaf, json_extract(e.metadata, '$.tenantId') AS tenant_id
       FROM events e JOIN log_leaves l ON l.position = e.position
       WHERE e.event_id IN (SELECT value FROM json_each(?)) ORDER BY l.leaf_index`,
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
