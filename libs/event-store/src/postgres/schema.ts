import type { PostgresMigrations } from '@ledger/platform';

/**
 * The PostgreSQL event store's tables (decision 0031).
 *
 * - `position` is an identity column; appends take it under one
 *   transaction-scoped advisory lock, so positions are handed out and
 *   committed in the same order.
 * - `transaction_id` (xid8) is the writing transaction's id: a subscription
 *   reads only below `pg_snapshot_xmin(pg_current_snapshot())`, the
 *   high-water mark under which every transaction has ended.
 * - `data` and `metadata` are `json`, which keeps the exact text written
 *   (member order, escapes): the text the integrity hash covers, so an
 *   auditor recomputes a row's hash from its columns as on SQLite.
 * - `(stream_id, revision)` is unique: optimistic concurrency holds even for
 *   a writer that bypassed the lock. `event_id` is unique as on SQLite.
 */
export const EVENT_STORE_MIGRATIONS: PostgresMigrations = {
  component: 'event-store',
  steps: [
    `CREATE TABLE events (
       position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       transaction_id xid8   NOT NULL DEFAULT pg_current_xact_id(),
       event_id       text   NOT NULL CONSTRAINT events_event_id_unique UNIQUE,
       stream_id      text   NOT NULL,
       revision       bigint NOT NULL,
       type           text   NOT NULL,
       data           json   NOT NULL,
       metadata       json   NOT NULL,
       created        bigint NOT NULL,
       hash           text   NOT NULL,
       previous_hash  text,
       CONSTRAINT events_stream_revision_unique UNIQUE (stream_id, revision)
     );`,
    // The ledger's Merkle tree (decision 0058), as on SQLite: each event's leaf entered under the append lock in the
    // transaction that appends it, so leaf order is commit order across processes, in a table of its own (a ledger
    // written before the tree gets leaves inserted, not every event row rewritten); kept subtrees are every fourth
    // level's; checkpoints and cosignatures are append-only.
    `CREATE TABLE log_leaves (
       leaf_index bigint PRIMARY KEY,
       position   bigint NOT NULL,
       leaf       bytea  NOT NULL
     );
     -- Positions grow with leaf indexes and rows are only appended: a block range index finds an event's leaf
     -- for a fraction of what a B-tree would cost every append.
     CREATE INDEX log_leaves_position ON log_leaves USING brin (position);
     CREATE TABLE log_subtrees (
       level integer NOT NULL,
       idx   bigint  NOT NULL,
       hash  bytea   NOT NULL,
       PRIMARY KEY (level, idx)
     );
     CREATE TABLE log_checkpoints (
       size      bigint PRIMARY KEY,
       root      bytea  NOT NULL,
       note      text   NOT NULL,
       issued_at bigint NOT NULL
     );
     CREATE TABLE log_cosignatures (
       size        bigint NOT NULL,
       witness     text   NOT NULL,
       line        text   NOT NULL,
       cosigned_at bigint NOT NULL,
       PRIMARY KEY (size, witness)
     );
     CREATE FUNCTION log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
     CREATE TRIGGER log_checkpoints_append_only BEFORE UPDATE OR DELETE ON log_checkpoints
       FOR EACH ROW EXECUTE FUNCTION log_append_only();
     CREATE TRIGGER log_cosignatures_append_only BEFORE UPDATE OR DELETE ON log_cosignatures
       FOR EACH ROW EXECUTE FUNCTION log_append_only();`,
    // As on SQLite: the tree's size, how many leaves integration has hashed into it (decision 0058).
    `CREATE TABLE log_tree (
       id   integer PRIMARY KEY CHECK (id = 1),
       size bigint  NOT NULL
     );
     INSERT INTO log_tree (id, size) SELECT 1, COALESCE(MAX(leaf_index) + 1, 0) FROM log_leaves;`,
    // As on SQLite: each dispatcher's finished mark (decision 0080).
    `CREATE TABLE finished_marks (
       follower text   PRIMARY KEY,
       position bigint NOT NULL
     );`,
    // An event's leaf is found by its position (a proof, an audit bundle): a B-tree, since the block range index
    // above summarised only what VACUUM had reached, so every lookup read the table's unsummarised tail, the whole
    // table right after a bulk load (decision 0083). Built once on upgrade, about half a second per million leaves.
    `DROP INDEX log_leaves_position;
     CREATE INDEX log_leaves_position ON log_leaves (position);`,
    // Stream ids are compared byte by byte, whatever the database's collation: a kind of stream is listed as a range of
    // its prefix in the (stream_id, revision) index (decision 0092), which a language's collation does not keep
    // together. Rebuilds that index once on upgrade; the rows are not rewritten.
    `ALTER TABLE events ALTER COLUMN stream_id TYPE text COLLATE "C";`,
  ],
};

/** The constraint an event id already recorded elsewhere violates. */
export const EVENT_ID_UNIQUE = 'events_event_id_unique';

/** NOTIFY channel on which a commit wakes live subscriptions (of every process on the database). */
export const EVENTS_CHANNEL = 'ledger_events';
