import Database from 'better-sqlite3';
import { Client } from 'pg';
import { migratePostgres, createPostgresPool } from '@ledger/platform';
import { hashEventText, storedJson } from '../integrity';
import { EVENT_STORE_MIGRATIONS } from '../postgres/schema';
import { EVENT_STORE_SCHEMA, migrateSchema } from '../sqlite/schema';
import { newEvent } from './event-store.contract';

/** An event as a ledger written before the Merkle tree holds it. */
export interface OldEvent {
  streamId: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  hash: string;
  previousHash: string | null;
}

/** `count` events of each stream, interleaved stream by stream, chained as the store chains them. */
function oldEvents(streams: ReadonlyArray<{ streamId: string; events: number }>): OldEvent[] {
  const events: OldEvent[] = [];
  const heads = new Map<string, string | null>();
  const longest = Math.max(0, ...streams.map((s) => s.events));
  for (let revision = 0; revision < longest; revision += 1) {
    for (const { streamId, events: count } of streams) {
      if (revision >= count) continue;
      const { id, type, data, metadata } = newEvent();
      const previousHash = heads.get(streamId) ?? null;
      const dataText = storedJson(data);
      const metadataText = storedJson({ ...metadata, recordedAt: metadata.recordedAt + events.length });
      const hash = hashEventText(previousHash, streamId, revision, id, type, dataText, metadataText);
      events.push({ streamId, revision, id, type, data: dataText, metadata: metadataText, hash, previousHash });
      heads.set(streamId, hash);
    }
  }
  return events;
}

/**
 * A SQLite ledger as the schema of `version` (1 or 2, both before the tree)
 * wrote it, with these streams' events in position order; returns the events.
 */
export function writeLedgerAtVersion(file: string, version: number, streams: ReadonlyArray<{ streamId: string; events: number }>): OldEvent[] {
  const db = new Database(file);
  try {
    migrateSchema(db, EVENT_STORE_SCHEMA.slice(0, version), 'event store');
    const events = oldEvents(streams);
    const insert = db.prepare(
      'INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const e of events) insert.run(e.id, e.streamId, e.revision, e.type, e.data, e.metadata, 1_763_800_000_000, e.hash, e.previousHash);
    })();
    return events;
  } finally {
    db.close();
  }
}

/** The same on a PostgreSQL database: its first schema step only, and the events. */
export async function writePostgresLedgerBeforeTheTree(url: string, streams: ReadonlyArray<{ streamId: string; events: number }>): Promise<OldEvent[]> {
  const pool = createPostgresPool(url, 'ledger-before-the-tree');
  try {
    await migratePostgres(pool, { ...EVENT_STORE_MIGRATIONS, steps: EVENT_STORE_MIGRATIONS.steps.slice(0, 1) });
  } finally {
    await pool.end();
  }
  const events = oldEvents(streams);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO events (event_id, stream_id, revision, type, data, metadata, created, hash, previous_hash)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::json[], $6::json[], $7::bigint[], $8::text[], $9::text[])`,
      [
        events.map((e) => e.id),
        events.map((e) => e.streamId),
        events.map((e) => e.revision),
        events.map((e) => e.type),
        events.map((e) => e.data),
        events.map((e) => e.metadata),
        events.map(() => 1_763_800_000_000),
        events.map((e) => e.hash),
        events.map((e) => e.previousHash),
      ],
    );
  } finally {
    await client.end();
  }
  return events;
}
