import type Database from 'better-sqlite3';

/**
 * Opening settings and schema of the embedded store. Several processes (the
 * service, the CLI) open the same file: WAL lets readers run beside the one
 * writer, `synchronous=FULL` makes every commit durable, and `busy_timeout`
 * makes a writer wait for another process's transaction instead of failing.
 * `temp_store=MEMORY` keeps the journal of a savepoint (the store's slow
 * path uses one per append) in memory rather than spilling it to a temporary file.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** Applied in order; a database records how many it has applied. Never edit one that shipped. */
export const EVENT_STORE_SCHEMA: readonly string[] = [
  `CREATE TABLE events (
     position      INTEGER PRIMARY KEY AUTOINCREMENT,
     event_id      TEXT    NOT NULL UNIQUE,
     stream_id     TEXT    NOT NULL,
     revision      INTEGER NOT NULL,
     type          TEXT    NOT NULL,
     data          TEXT    NOT NULL,
     metadata      TEXT    NOT NULL,
     created       INTEGER NOT NULL,
     hash          TEXT    NOT NULL,
     previous_hash TEXT,
     UNIQUE (stream_id, revision)
   );
   CREATE TABLE streams (
     stream_id     TEXT    PRIMARY KEY,
     last_revision INTEGER NOT NULL,
     last_hash     TEXT    NOT NULL
   ) WITHOUT ROWID;`,
  // A stream's head (last revision and hash) is read from the events table's
  // (stream_id, revision) index: as cheap as the streams table to read and
  // one write less per append.
  `DROP TABLE streams;`,
  // The ledger's Merkle tree (decision 0058): each event's leaf, entered in the transaction that appends it, in
  // a table of its own (a ledger written before the tree gets its leaves inserted, not its events rewritten);
  // leaves are the events' in position order, so the events after the last leaf's position have none yet.
  // Kept subtrees are every fourth level's; checkpoints and cosignatures are append-only.
  // No index on position: leaves are in position order, so an event's leaf is found by bisecting leaf indexes.
  `CREATE TABLE log_leaves (
     leaf_index INTEGER PRIMARY KEY,
     position   INTEGER NOT NULL,
     leaf       BLOB    NOT NULL
   );
   CREATE TABLE log_subtrees (
     level INTEGER NOT NULL,
     idx   INTEGER NOT NULL,
     hash  BLOB    NOT NULL,
     PRIMARY KEY (level, idx)
   ) WITHOUT ROWID;
   CREATE TABLE log_checkpoints (
     size      INTEGER PRIMARY KEY,
     root      BLOB    NOT NULL,
     note      TEXT    NOT NULL,
     issued_at INTEGER NOT NULL
   );
   CREATE TABLE log_cosignatures (
     size        INTEGER NOT NULL,
     witness     TEXT    NOT NULL,
     line        TEXT    NOT NULL,
     cosigned_at INTEGER NOT NULL,
     PRIMARY KEY (size, witness)
   ) WITHOUT ROWID;
   CREATE TRIGGER log_checkpoints_kept BEFORE UPDATE ON log_checkpoints BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
   CREATE TRIGGER log_checkpoints_not_deleted BEFORE DELETE ON log_checkpoints BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
   CREATE TRIGGER log_cosignatures_kept BEFORE UPDATE ON log_cosignatures BEGIN SELECT RAISE(ABORT, 'cosignatures are append-only'); END;
   CREATE TRIGGER log_cosignatures_not_deleted BEFORE DELETE ON log_cosignatures BEGIN SELECT RAISE(ABORT, 'cosignatures are append-only'); END;`,
  // Leaves are hashed into the tree after their append, by integration (decision 0058): the tree's size is how many
  // of them are, every kept hash below it stored. Until now each append hashed its own leaves, so all of them are.
  `CREATE TABLE log_tree (
     id   INTEGER PRIMARY KEY CHECK (id = 1),
     size INTEGER NOT NULL
   );
   INSERT INTO log_tree (id, size) SELECT 1, COALESCE(MAX(leaf_index) + 1, 0) FROM log_leaves;`,
  // Each dispatcher's finished mark (decision 0080): kept with the events, since Redis can lose the queues.
  `CREATE TABLE finished_marks (
     follower TEXT    PRIMARY KEY,
     position INTEGER NOT NULL
   ) WITHOUT ROWID;`,
];

export function openDatabase(db: Database.Database, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('temp_store = MEMORY');
  migrateSchema(db, EVENT_STORE_SCHEMA, 'event store');
}

/**
 * Applies the migrations a database has not applied yet, counting them in a
 * `schema_version` table; shared by the SQLite files of the service (the
 * event store, the key table).
 */
export function migrateSchema(db: Database.Database, migrations: readonly string[], what: string): void {
  // IMMEDIATE: two processes opening a fresh file at once apply each migration once.
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
    const applied = row?.version ?? 0;
    if (applied > migrations.length) {
      throw new Error(`${what} schema version ${applied} is newer than this code (${migrations.length})`);
    }
    for (const migration of migrations.slice(applied)) db.exec(migration);
    if (row === undefined) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(migrations.length);
    else db.prepare('UPDATE schema_version SET version = ?').run(migrations.length);
  }).immediate();
}
