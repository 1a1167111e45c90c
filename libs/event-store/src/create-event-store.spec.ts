import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore } from './create-event-store';
import { EsdbEventStore } from './esdb/esdb-event-store';
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
    const store = createEventStore({ dataDir, eventStoreConnectionString: undefined });
    try {
      expect(store).toBeInstanceOf(SqliteEventStore);
      expect(existsSync(join(dataDir, 'ledger.sqlite'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('chooses EventStoreDB when a connection string is set', async () => {
    const store = createEventStore({ dataDir: root, eventStoreConnectionString: 'esdb://127.0.0.1:2113?tls=false' });
    try {
      expect(store).toBeInstanceOf(EsdbEventStore);
      expect(existsSync(join(root, 'ledger.sqlite'))).toBe(false);
    } finally {
      await store.close();
    }
  });
});
