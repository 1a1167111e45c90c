import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore, SqliteEventStore } from '@ledger/event-store';
import { redecStreams } from '../streams';
import { LedgerConfigurations } from './ledger-configurations';
import { publishedVersion as version } from './published-version.fixture';

const fact = (tenantId: string, type: string, data: unknown) => ({ id: randomUUID(), type, data, metadata: { tenantId, correlationId: 'c', recordedAt: 1, schemaVersion: 1 } });

// Integration: the real SQLite store, whose index of streams is what keeps the rest of the ledger out of the lookup.
describe('LedgerConfigurations', () => {
  let dir: string;
  let store: SqliteEventStore;
  /** Every stream the lookups read. */
  let streamsRead: string[];
  let configurations: LedgerConfigurations;
  const template = (tenantId: string, templateKey: string) => redecStreams.configurationTemplate(tenantId, templateKey);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-configurations-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    streamsRead = [];
    const counted: EventStore = Object.create(store);
    counted.readStream = (streamId, options) => {
      streamsRead.push(streamId);
      return store.readStream(streamId, options);
    };
    configurations = new LedgerConfigurations(counted);
    await store.append(template('t1', 'consumer'), [fact('t1', 'ConfigurationPublished', version('cfg-1', 1))], 'no_stream');
    await store.append(redecStreams.consent('t1', 'c-1'), [fact('t1', 'ConsentGranted', {})], 'no_stream');
    await store.append(template('t2', 'consumer'), [fact('t2', 'ConfigurationPublished', version('cfg-9', 1))], 'no_stream');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds a published version as the read model holds it, reading only the tenant's template streams", async () => {
    await store.append(template('t1', 'commercial'), [fact('t1', 'ConfigurationPublished', version('cfg-2', 1))], 'no_stream');
    expect(await configurations.find('t1', 'cfg-1')).toEqual({ tenantId: 't1', ...version('cfg-1', 1) });
    expect(streamsRead.sort()).toEqual([template('t1', 'consumer'), template('t1', 'commercial')].sort());
    // Found once, a version is not read again, nor is one read alongside it.
    expect(await configurations.find('t1', 'cfg-1')).toEqual({ tenantId: 't1', ...version('cfg-1', 1) });
    expect(await configurations.find('t1', 'cfg-2')).toMatchObject({ configurationId: 'cfg-2' });
    expect(streamsRead).toHaveLength(2);
  });

  it('finds a version published after an earlier lookup', async () => {
    await configurations.find('t1', 'cfg-1');
    await store.append(template('t1', 'consumer'), [fact('t1', 'ConfigurationPublished', version('cfg-3', 2))], 0);
    expect(await configurations.find('t1', 'cfg-3')).toMatchObject({ configurationId: 'cfg-3', version: 2 });
  });

  it("answers null for an id the tenant has not published, another tenant's included", async () => {
    expect(await configurations.find('t1', 'cfg-9')).toBeNull();
    expect(await configurations.find('t1', 'unknown')).toBeNull();
    expect(streamsRead.every((streamId) => streamId.startsWith(redecStreams.configurationTemplates('t1')))).toBe(true);
    expect(await configurations.find('t2', 'cfg-9')).toMatchObject({ tenantId: 't2', configurationId: 'cfg-9' });
  });
});
