import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore, SqliteEventStore } from '@ledger/event-store';
import { LedgerConfigurations } from './ledger-configurations';
import { publishedVersion as version } from './published-version.fixture';

const fact = (tenantId: string, type: string, data: unknown) => ({ id: randomUUID(), type, data, metadata: { tenantId, correlationId: 'c', recordedAt: 1, schemaVersion: 1 } });

// Integration: the real SQLite store, whose type filter is what keeps the other facts out of the process.
describe('LedgerConfigurations', () => {
  let dir: string;
  let store: SqliteEventStore;
  let reads: Array<{ after?: number; eventTypes?: readonly string[] }>;
  let configurations: LedgerConfigurations;
  /** Holds every read's answer (read from the store when asked) until released: a read under way, for as long as a test needs. */
  let held: Promise<void>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-configurations-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    reads = [];
    const counted: EventStore = Object.create(store);
    held = Promise.resolve();
    counted.readAll = async (options) => {
      reads.push({ after: options?.after, eventTypes: options?.eventTypes });
      const page = await store.readAll(options);
      await held;
      return page;
    };
    configurations = new LedgerConfigurations(counted);
    await store.append('template-t1', [fact('t1', 'ConfigurationPublished', version('cfg-1', 1))], 'no_stream');
    await store.append('other', [fact('t1', 'CustomerRegistered', {})], 'no_stream');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds a published version as the read model holds it, reading only the configuration facts', async () => {
    expect(await configurations.find('t1', 'cfg-1')).toEqual({ tenantId: 't1', ...version('cfg-1', 1) });
    expect(reads).toEqual([{ after: 0, eventTypes: ['ConfigurationPublished'] }]);
    // Found once, a version is not read again.
    expect(await configurations.find('t1', 'cfg-1')).toEqual({ tenantId: 't1', ...version('cfg-1', 1) });
    expect(reads).toHaveLength(1);
  });

  it('finds a version published after the first read by reading only the facts after it', async () => {
    await configurations.find('t1', 'cfg-1');
    const { position } = await store.append('template-t1', [fact('t1', 'ConfigurationPublished', version('cfg-2', 2))], 0);
    expect(await configurations.find('t1', 'cfg-2')).toMatchObject({ configurationId: 'cfg-2', version: 2 });
    expect(reads.slice(1)).toEqual([{ after: expect.any(Number), eventTypes: ['ConfigurationPublished'] }]);
    expect(reads[1].after).toBeLessThan(position);
    expect(reads[1].after).toBeGreaterThan(0);
  });

  it('answers null for an id the tenant has not published, another tenant\'s included', async () => {
    await store.append('template-t2', [fact('t2', 'ConfigurationPublished', version('cfg-9', 1))], 'no_stream');
    expect(await configurations.find('t1', 'cfg-9')).toBeNull();
    expect(await configurations.find('t1', 'unknown')).toBeNull();
    expect(await configurations.find('t2', 'cfg-9')).toMatchObject({ tenantId: 't2', configurationId: 'cfg-9' });
  });

  it('gives every lookup under way a read that began after it: one joining an older read still finds a version published since', async () => {
    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    const first = configurations.find('t1', 'cfg-1');
    await store.append('template-t1', [fact('t1', 'ConfigurationPublished', version('cfg-3', 2))], 0);
    const joining = configurations.find('t1', 'cfg-3');
    release();
    expect(await first).not.toBeNull();
    expect(await joining).toMatchObject({ configurationId: 'cfg-3' });
  });
});
