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
  ],
};

/** The constraint an event id already recorded elsewhere violates. */
export const EVENT_ID_UNIQUE = 'events_event_id_unique';

/** NOTIFY channel on which a commit wakes live subscriptions (of every process on the database). */
export const EVENTS_CHANNEL = 'ledger_events';
