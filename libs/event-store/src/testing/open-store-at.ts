import type { EventStore } from '../event-store.port';
import { PostgresEventStore } from '../postgres/postgres-event-store';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';

/** The store a child process of the tests opens: a postgres:// URL, else a SQLite file. */
export function openStoreAt(target: string): EventStore {
  return /^postgres(ql)?:\/\//.test(target) ? new PostgresEventStore(target) : new SqliteEventStore(target);
}
