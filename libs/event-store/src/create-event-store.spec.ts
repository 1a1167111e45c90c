import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerNotFoundError, createEventStore } from './create-event-store';
import { EsdbEventStore } from './esdb/esdb-event-store';
import { PostgresEventStore } from './postgres/postgres-event-store';
import { createTestDatabase } from './testing';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

describe('createEventStore', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ledger-factory-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('opens the SQLite file inside the data directory, creating the directory', async () => {
    const dataDir = join(root, 'nested', 'data');
    const store = createEventStore({ dataDir, eventStoreConnectionString: undefined, databaseUrl: undefined });
    try {
      expect(store).toBeInstanceOf(SqliteEventStore);
      expect(existsSync(join(dataDir, 'ledger.sqlite'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('with create: false, refuses a data directory without a ledger and creates nothing there', async () => {
    for (const dataDir of [root, join(root, 'missing')]) {
      expect(() => createEventStore({ dataDir, eventStoreConnectionString: undefined, databaseUrl: undefined }, { create: false })).toThrow(new LedgerNotFoundError(join(dataDir, 'ledger.sqlite')));
      expect(existsSync(join(dataDir, 'ledger.sqlite'))).toBe(false);
    }
    expect(existsSync(join(root, 'missing'))).toBe(false);

    await createEventStore({ dataDir: root, eventStoreConnectionString: undefined, databaseUrl: undefined }).close();
    const existing = createEventStore({ dataDir: root, eventStoreConnectionString: undefined, databaseUrl: undefined }, { create: false });
    await existing.close();
    expect(existing).toBeInstanceOf(SqliteEventStore);
  });

  it('chooses EventStoreDB when a connection string is set', async () => {
    const store = createEventStore({ dataDir: root, eventStoreConnectionString: 'esdb://127.0.0.1:2113?tls=false', databaseUrl: 'postgres://127.0.0.1/never-used' });
    try {
      expect(store).toBeInstanceOf(EsdbEventStore);
      expect(existsSync(join(root, 'ledger.sqlite'))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('chooses PostgreSQL when a database URL is set and EventStoreDB is not, creating nothing in the data directory', async () => {
    const database = await createTestDatabase();
    const store = createEventStore({ dataDir: root, eventStoreConnectionString: undefined, databaseUrl: database.url });
    try {
      expect(store).toBeInstanceOf(PostgresEventStore);
      await expect(store.append('factory', [{ id: 'f-1', type: 't', data: {}, metadata: { correlationId: 'c', recordedAt: 0, schemaVersion: 1 } }], 'no_stream')).resolves.toMatchObject({ nextRevision: 0 });
      expect(existsSync(join(root, 'ledger.sqlite'))).toBe(false);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
