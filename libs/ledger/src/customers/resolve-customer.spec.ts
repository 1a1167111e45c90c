import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { DomainError, IdentifierProtection } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import { CommandContext } from '../command-context';
import { streams } from '../streams';
import { SqliteCustomerKeyTable } from '../customer-keys/sqlite-customer-key-table';
import { identityKey } from './identifier-input';
import { ABANDONED_CLAIM_AFTER_MS, resolveCustomer } from './resolve-customer';

// Integration: the real SQLite store, the real keyed hashing and encryption.
describe('resolveCustomer against the SQLite store', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  let keyTable: SqliteCustomerKeyTable;
  const customerKeys = ephemeralCustomerKeys();
  const protection = new IdentifierProtection(ephemeralTenantKeys(), customerKeys);
  const deps = () => ({ store, protection, blindIndex: keyTable });
  const tenantId = randomUUID();
  let clock = 1_763_800_000_000;
  const context = (): CommandContext & { tenantId: string } => ({ tenantId, actor: 'key-1', correlationId: randomUUID(), now: clock });
  const rut = (value: string) => ({ system: 'cl-sii', type: 'rut', value });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'resolve-'));
    file = join(dir, 'ledger.sqlite');
    store = new SqliteEventStore(file);
    keyTable = new SqliteCustomerKeyTable(join(dir, 'customer-keys.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    await keyTable.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates once, then resolves compatible repeats to the same customer', async () => {
    const first = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    expect(first).toMatchObject({ created: true, identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }] });
    expect(first.position).toBeGreaterThan(0);

    const again = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('123456785')] }, context());
    expect(again).toEqual({ customerId: first.customerId, created: false, identifiers: first.identifiers, position: null });
  });

  it('keeps tenants apart: the same reference and identity in another tenant is another customer', async () => {
    const a = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    const b = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, { ...context(), tenantId: randomUUID() });
    expect(b.created).toBe(true);
    expect(b.customerId).not.toBe(a.customerId);
  });

  it('fails closed on the same reference with another identity and the same identity under another reference', async () => {
    await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    await expect(resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('11.111.111-1')] }, context())).rejects.toMatchObject({
      code: 'CUSTOMER_IDENTITY_CONFLICT',
    });
    await expect(resolveCustomer(deps(), { userReference: 'u-2', identifiers: [rut('12.345.678-5')] }, context())).rejects.toMatchObject({
      code: 'CUSTOMER_IDENTITY_CONFLICT',
    });
    // The refused requests claimed nothing: the other identity is still free for its own reference.
    const other = await resolveCustomer(deps(), { userReference: 'u-3', identifiers: [rut('11.111.111-1')] }, context());
    expect(other.created).toBe(true);
  });

  it('creates no customer key for a resolution refused for an identifier another customer holds', async () => {
    const holder = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    const keyFor = jest.spyOn(customerKeys, 'keyFor');
    try {
      await expect(resolveCustomer(deps(), { userReference: 'u-2', identifiers: [rut('12.345.678-5')] }, context())).rejects.toMatchObject({ code: 'CUSTOMER_IDENTITY_CONFLICT' });
      expect(new Set(keyFor.mock.calls.map(([, customerId]) => customerId))).toEqual(new Set([holder.customerId]));
    } finally {
      keyFor.mockRestore();
    }
  });

  it('gives concurrent first resolutions of one reference a single customer, created exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => resolveCustomer(deps(), { userReference: 'u-race', identifiers: [rut('12.345.678-5')] }, context())),
    );
    expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('lets only one of two references racing for one identity have it', async () => {
    const outcomes = await Promise.allSettled(
      ['u-a', 'u-b'].map((userReference) => resolveCustomer(deps(), { userReference, identifiers: [rut('12.345.678-5')] }, context())),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect((refused.reason as DomainError).code).toBe('CUSTOMER_IDENTITY_CONFLICT');
  });

  it('decides again on the customer when a concurrent resolution of it recorded a link after its decision, and records its own on top', async () => {
    const { customerId } = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    const email = { system: 'bank', type: 'email', value: 'ana@example.cl' };
    const phone = { system: 'bank', type: 'phone', value: '+56912345678' };
    let raced = false;
    // The other resolution runs to its end between this one's decision and its fact: when this one writes its first claim.
    const racing: typeof keyTable = Object.create(keyTable, {
      writeClaim: {
        value: async (...claim: Parameters<SqliteCustomerKeyTable['writeClaim']>) => {
          if (!raced) {
            raced = true;
            await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5'), phone] }, context());
          }
          return keyTable.writeClaim(...claim);
        },
      },
    });

    const resolved = await resolveCustomer({ store, protection, blindIndex: racing }, { userReference: 'u-1', identifiers: [rut('12.345.678-5'), email] }, context());
    expect(raced).toBe(true);
    expect(resolved).toMatchObject({
      customerId,
      created: false,
      identifiers: [
        { system: 'cl-sii', type: 'rut' },
        { system: 'bank', type: 'phone' },
        { system: 'bank', type: 'email' },
      ],
    });
    const recorded = await store.readStream(streams.customer(tenantId, customerId));
    expect(recorded.map((e) => e.type)).toEqual(['CustomerRegistered', 'CustomerIdentifierLinked', 'CustomerIdentifierLinked']);
    expect(recorded.slice(1).map((e) => (e.data as { identifier: { type: string } }).identifier.type)).toEqual(['phone', 'email']);
  });

  it('takes over a claim abandoned by a crashed resolution, and respects a fresh one', async () => {
    const hash = await protection.hash(tenantId, 'identifier', 'cl-sii\u0000rut\u000012345678-5');
    await keyTable.writeClaim(tenantId, 'identifier', hash, { customerId: randomUUID(), claimedAt: clock - 1_000 }, 'no_stream');
    await expect(resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context())).rejects.toMatchObject({
      code: 'CUSTOMER_RESOLUTION_IN_PROGRESS',
    });

    clock += ABANDONED_CLAIM_AFTER_MS + 1;
    const resolved = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    expect(resolved.created).toBe(true);
  });

  it('does not find a customer recorded before decision 0035, whose claims are reservation streams: the same values make a new customer', async () => {
    const customerId = randomUUID();
    const seal = async (purpose: string, value: string) => ({ hash: await protection.hash(tenantId, purpose, value), ciphertext: await protection.encrypt(tenantId, value) });
    const userReference = await seal('user-reference', 'u-1');
    const identifier = { hash: await protection.hash(tenantId, 'identifier', identityKey({ system: 'cl-sii', type: 'rut', value: '12345678-5' })), ciphertext: await protection.encrypt(tenantId, '12345678-5') };
    const metadata = { tenantId, correlationId: 'c', recordedAt: clock, schemaVersion: 1 };
    const claimed = { type: 'ReservationClaimed', data: { customerId, claimedAt: clock }, metadata };
    await store.append(streams.reservation(tenantId, 'identifier', identifier.hash), [{ id: randomUUID(), ...claimed }], 'no_stream');
    await store.append(streams.reservation(tenantId, 'user-reference', userReference.hash), [{ id: randomUUID(), ...claimed }], 'no_stream');
    const registered = { customerId, userReference, identifiers: [{ system: 'cl-sii', type: 'rut', value: identifier, verification: null }], registeredAt: clock };
    await store.append(streams.customer(tenantId, customerId), [{ id: randomUUID(), type: 'CustomerRegistered', data: registered, metadata }], 'no_stream');

    const resolved = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    expect(resolved.created).toBe(true);
    expect(resolved.customerId).not.toBe(customerId);
  });

  it('links a new identifier to the existing customer and records a verification assertion', async () => {
    const first = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    const verification = { method: 'clave_unica', sourceReference: 'auth-9', verifiedAt: clock - 5 };
    const second = await resolveCustomer(
      deps(),
      { userReference: 'u-1', identifiers: [{ ...rut('12.345.678-5'), verification }, { system: 'bank', type: 'email', value: 'ana@example.cl' }] },
      context(),
    );
    expect(second).toMatchObject({
      customerId: first.customerId,
      created: false,
      identifiers: [
        { system: 'cl-sii', type: 'rut', verificationState: 'asserted' },
        { system: 'bank', type: 'email', verificationState: 'unverified' },
      ],
    });
    await expect(resolveCustomer(deps(), { userReference: 'u-2', identifiers: [{ system: 'bank', type: 'email', value: 'ana@example.cl' }] }, context())).rejects.toMatchObject({
      code: 'CUSTOMER_IDENTITY_CONFLICT',
    });
  });

  it('keeps the blind index out of the event log, and records values under the customer\'s own key', async () => {
    const { customerId } = await resolveCustomer(deps(), { userReference: 'u-1', identifiers: [rut('12.345.678-5')] }, context());
    const entry = await protection.hash(tenantId, 'identifier', 'cl-sii\u0000rut\u000012345678-5');
    expect(await keyTable.readClaim(tenantId, 'identifier', entry)).toMatchObject({ customerId });
    const log = JSON.stringify(await store.readAll());
    expect(log).not.toContain(entry);
    expect(log).not.toContain(await protection.hash(tenantId, 'user-reference', 'u-1'));
    const [registered] = await store.readStream(streams.customer(tenantId, customerId));
    const { identifiers } = registered.data as { identifiers: Array<{ value: { hash: string; ciphertext: string } }> };
    expect(identifiers[0].value.ciphertext).toMatch(/^v2\.ck_/);
    expect(identifiers[0].value.hash).toBe(await protection.hashForCustomer(tenantId, customerId, 'identifier', 'cl-sii\u0000rut\u000012345678-5'));
    expect(await protection.decrypt(tenantId, identifiers[0].value.ciphertext)).toBe('12345678-5');
  });

  it('never writes a reference or identifier value in clear to the store', async () => {
    await resolveCustomer(deps(), { userReference: 'user-reference-7781', identifiers: [rut('12.345.678-5'), { system: 'bank', type: 'email', value: 'ana@example.cl' }] }, context());
    await store.close();
    store = new SqliteEventStore(file);
    const bytes = ['', '-wal'].map((suffix) => { try { return readFileSync(file + suffix).toString('latin1'); } catch { return ''; } }).join('');
    for (const secret of ['user-reference-7781', '12345678-5', '12.345.678-5', 'ana@example.cl']) expect(bytes).not.toContain(secret);
  });
});
