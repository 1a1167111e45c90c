import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { ConfigError, MasterKeys, masterKeys, systemClock } from '@ledger/platform';
import { CommandContext } from '../command-context';
import { streams } from '../streams';
import { TenantKeyring, rotateMasterKey } from './tenant-keys';
import { createTenant } from './tenant';

// Integration: the keyring as the service and the CLI use it, on the real SQLite store.
describe('TenantKeyring', () => {
  let dir: string;
  let store: SqliteEventStore;
  const clock = systemClock();
  const operator = (): CommandContext => ({ actor: 'cli:test', correlationId: randomUUID(), now: clock.now() });
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const open = (keys: MasterKeys) => TenantKeyring.open(store, keys, clock);
  const keyringEvents = async () => (await store.readStream(streams.keyring())).map((e) => e.type);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keyring-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates one data key per tenant on first use, even when two processes' first uses race", async () => {
    const { tenantId } = await createTenant(store, 'Banco', operator());
    const [first, second] = await Promise.all([open(masterKeys(oldKey)), open(masterKeys(oldKey))]);

    const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).dataKey(tenantId)));
    expect(new Set(keys.map((k) => k.id)).size).toBe(1);
    expect(await keyringEvents()).toEqual(['TenantDataKeyCreated']);
    const [created] = await store.readStream(streams.keyring());
    expect(created.data).toMatchObject({ tenantId, dataKeyId: keys[0].id });
    expect(created.metadata).not.toHaveProperty('tenantId');
    expect(JSON.stringify(created.data)).not.toContain(keys[0].exportSecret().toString('base64url'));
  });

  it('gives no key to a tenant that does not exist', async () => {
    const keyring = await open(masterKeys(oldKey));
    await expect(keyring.dataKey(randomUUID())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await keyringEvents()).toEqual([]);
  });

  it('refuses to open under a master key that wrapped none of its keys, naming the one it needs', async () => {
    const { tenantId } = await createTenant(store, 'Banco', operator());
    await (await open(masterKeys(oldKey))).dataKey(tenantId);

    const opening = open(masterKeys(newKey));
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(open(masterKeys(newKey))).rejects.toThrow(masterKeys(oldKey).current.id);
  });

  it('rotates: every key re-wrapped under the new master key in one append, hashes and ciphertexts unchanged', async () => {
    const tenants = await Promise.all(['A', 'B'].map(async (name) => (await createTenant(store, name, operator())).tenantId));
    const before = await open(masterKeys(oldKey));
    const hashes = await Promise.all(tenants.map(async (t) => (await before.dataKey(t)).hash('identifier', '12345678-5')));
    const ciphertexts = await Promise.all(tenants.map(async (t) => (await before.dataKey(t)).encrypt('ana@example.cl')));

    const rotation = await rotateMasterKey(store, masterKeys(newKey, [oldKey]), operator());
    expect(rotation).toEqual({ masterKeyId: masterKeys(newKey).current.id, previousMasterKeyIds: [masterKeys(oldKey).current.id], tenantKeys: 2, rewrapped: 2 });
    const recorded = await store.readStream(streams.keyring());
    expect(recorded.map((e) => e.type)).toEqual(['TenantDataKeyCreated', 'TenantDataKeyCreated', 'TenantDataKeyRewrapped', 'TenantDataKeyRewrapped']);
    expect(recorded[2].position).toBe(recorded[3].position - 1);

    const after = await open(masterKeys(newKey));
    for (const [index, tenantId] of tenants.entries()) {
      const key = await after.dataKey(tenantId);
      expect(key.hash('identifier', '12345678-5')).toBe(hashes[index]);
      expect(key.decrypt(ciphertexts[index])).toBe('ana@example.cl');
    }
    expect(await rotateMasterKey(store, masterKeys(newKey, [oldKey]), operator())).toMatchObject({ tenantKeys: 2, rewrapped: 0 });
  });

  it('refuses a rotation without the master key that wrapped the keys, recording nothing', async () => {
    const { tenantId } = await createTenant(store, 'Banco', operator());
    await (await open(masterKeys(oldKey))).dataKey(tenantId);

    await expect(rotateMasterKey(store, masterKeys(newKey), operator())).rejects.toThrow(/LEDGER_PREVIOUS_MASTER_KEYS/);
    expect(await keyringEvents()).toEqual(['TenantDataKeyCreated']);
  });

  it('during the overlap, a process on the new key reads keys still under the old one and wraps new ones under the new one', async () => {
    const [a, b] = await Promise.all(['A', 'B'].map(async (name) => (await createTenant(store, name, operator())).tenantId));
    const key = await (await open(masterKeys(oldKey))).dataKey(a);

    const overlap = await open(masterKeys(newKey, [oldKey]));
    expect((await overlap.dataKey(a)).id).toBe(key.id);
    await overlap.dataKey(b);

    expect(await rotateMasterKey(store, masterKeys(newKey, [oldKey]), operator())).toMatchObject({ tenantKeys: 2, rewrapped: 1 });
    await expect(open(masterKeys(newKey))).resolves.toBeInstanceOf(TenantKeyring);
  });
});
