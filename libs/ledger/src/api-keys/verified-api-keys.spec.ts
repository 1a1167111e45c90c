import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { countingReads } from '@ledger/event-store/testing';
import { CommandContext } from '../command-context';
import { streams } from '../streams';
import { createTenant } from '../tenancy/tenant';
import { issueApiKey, revokeApiKey } from './api-key';
import { API_KEY_RECHECK_MS, VerifiedApiKeys } from './verified-api-keys';

// Integration: the service's verifier on the real SQLite store; the revocations come through a second connection, as the CLI's do.
describe('VerifiedApiKeys', () => {
  let dir: string;
  let service: SqliteEventStore;
  let cli: SqliteEventStore;
  let now: number;
  const operator = (): CommandContext => ({ actor: 'cli:test', correlationId: randomUUID(), now: Date.now() });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'api-keys-'));
    service = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    cli = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    now = 1_000;
  });
  afterEach(async () => {
    await Promise.all([service.close(), cli.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const issue = async () => {
    const { tenantId } = await createTenant(cli, 'Banco', operator());
    return { tenantId, ...(await issueApiKey(cli, { tenantId, scopes: ['consent:read'] }, operator())) };
  };

  it('answers the principal of a valid key, and null for a wrong secret, a malformed key or an unknown key id', async () => {
    const keys = new VerifiedApiKeys(service, () => now);
    const { tenantId, keyId, apiKey } = await issue();
    expect(await keys.verify(apiKey)).toEqual({ tenantId, keyId, scopes: ['consent:read'] });
    const wrongSecret = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    expect(await keys.verify(wrongSecret)).toBeNull();
    expect(await keys.verify('lk_nonsense')).toBeNull();
    expect(await keys.verify(`lk_${'0'.repeat(24)}_${'a'.repeat(43)}`)).toBeNull();
  });

  it('reads a key once within the recheck window, then again from the revision it holds', async () => {
    const store = countingReads(service);
    const keys = new VerifiedApiKeys(store, () => now);
    const { apiKey, keyId } = await issue();
    await Promise.all(Array.from({ length: 10 }, () => keys.verify(apiKey)));
    expect(store.reads).toBe(1);
    now += API_KEY_RECHECK_MS - 1;
    await keys.verify(apiKey);
    expect(store.reads).toBe(1);
    now += 1;
    const read = jest.spyOn(service, 'readStream');
    await keys.verify(apiKey);
    expect(store.reads).toBe(2);
    expect(read).toHaveBeenCalledWith(streams.apiKey(keyId), { fromRevision: 1 });
  });

  it('refuses a key revoked by another process once the recheck window has passed, and from then on', async () => {
    const keys = new VerifiedApiKeys(service, () => now);
    const { apiKey, keyId } = await issue();
    expect(await keys.verify(apiKey)).not.toBeNull();
    await revokeApiKey(cli, keyId, operator());
    now += API_KEY_RECHECK_MS;
    expect(await keys.verify(apiKey)).toBeNull();
    now += 10 * API_KEY_RECHECK_MS;
    expect(await keys.verify(apiKey)).toBeNull();
  });

  it('accepts a key issued by another process after the verifier started, on its first request', async () => {
    const keys = new VerifiedApiKeys(service, () => now);
    const { tenantId } = await issue();
    const later = await issueApiKey(cli, { tenantId, scopes: ['consent:write'] }, operator());
    expect(await keys.verify(later.apiKey)).toMatchObject({ keyId: later.keyId, scopes: ['consent:write'] });
  });
});
