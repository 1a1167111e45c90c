import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@ledger/event-store/testing';
import { BlobProtection } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import { BlobCorruptedError, InvalidBlobNameError, blobAddress } from './blob-store.port';
import { customerBlobsContract } from '../testing/customer-blobs.contract';
import { PostgresBlobStore } from './postgres-blob-store';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('PostgresBlobStore', () => {
  let database: TestDatabase;
  let store: PostgresBlobStore;
  let sql: Client;
  const tenantId = randomUUID();
  const otherTenantId = randomUUID();
  const rowsOf = async (tenant: string, hash: string) =>
    (await sql.query<{ sealed: Buffer; stored_at: Date }>('SELECT sealed, stored_at FROM blobs WHERE tenant_id = $1 AND content_sha256 = $2', [tenant, hash])).rows;

  const customerKeys = ephemeralCustomerKeys();

  beforeAll(async () => {
    database = await createTestDatabase();
    store = new PostgresBlobStore(database.url, new BlobProtection(ephemeralTenantKeys(), customerKeys));
    await store.opened();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await store.close();
    await database.drop();
  });

  it('stores bytes under their SHA-256 and reads them back', async () => {
    const bytes = Buffer.from('%PDF-1.4 certificado ñ');
    const stored = await store.put(tenantId, bytes);
    expect(stored).toEqual({ contentSha256: sha256(bytes), size: bytes.length });
    expect(await store.has(tenantId, stored.contentSha256)).toBe(true);
    expect(await store.get(tenantId, stored.contentSha256)).toEqual(bytes);
  });

  it('keeps only the sealed envelope in the table', async () => {
    const bytes = Buffer.from('grabación de la llamada');
    const { contentSha256 } = await store.put(tenantId, bytes);
    const [row] = await rowsOf(tenantId, contentSha256);
    expect(row.sealed.includes(Buffer.from('llamada'))).toBe(false);
    expect(row.sealed.subarray(0, 4).toString('ascii')).toBe('LDGB');
  });

  it('keeps tenants apart: a row copied to another tenant does not open there', async () => {
    const bytes = Buffer.from('escaneo');
    const { contentSha256 } = await store.put(tenantId, bytes);
    expect(await store.has(otherTenantId, contentSha256)).toBe(false);
    expect(await store.get(otherTenantId, contentSha256)).toBeNull();
    await sql.query(
      `INSERT INTO blobs (tenant_id, content_sha256, sealed) SELECT $2, content_sha256, sealed FROM blobs WHERE tenant_id = $1 AND content_sha256 = $3`,
      [tenantId, otherTenantId, contentSha256],
    );
    await expect(store.get(otherTenantId, contentSha256)).rejects.toThrow(/does not open under the tenant's key/);
  });

  it('stores empty bytes like any other, and answers null and false for a hash it does not hold', async () => {
    const stored = await store.put(tenantId, Buffer.alloc(0));
    expect(await store.get(tenantId, stored.contentSha256)).toEqual(Buffer.alloc(0));
    const absent = sha256(Buffer.from('never stored'));
    expect(await store.get(tenantId, absent)).toBeNull();
    expect(await store.has(tenantId, absent)).toBe(false);
  });

  it('is idempotent: the same bytes put again, or concurrently, are one row, written once', async () => {
    const bytes = Buffer.alloc(256 * 1024, 7);
    const first = await store.put(tenantId, bytes);
    const [before] = await rowsOf(tenantId, first.contentSha256);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.put(tenantId, Buffer.from(bytes))));
    expect(new Set(results.map((r) => r.contentSha256))).toEqual(new Set([first.contentSha256]));
    const after = await rowsOf(tenantId, first.contentSha256);
    expect(after).toHaveLength(1);
    expect(after[0].sealed).toEqual(before.sealed);
    expect(await store.get(tenantId, first.contentSha256)).toEqual(bytes);
  });

  it('never updates a row, whoever connects', async () => {
    const { contentSha256 } = await store.put(tenantId, Buffer.from('inmutable'));
    await expect(sql.query(`UPDATE blobs SET sealed = 'x'::bytea WHERE content_sha256 = $1`, [contentSha256])).rejects.toThrow(
      /never updated/,
    );
    expect(await store.get(tenantId, contentSha256)).toEqual(Buffer.from('inmutable'));
  });

  it('reports a damaged row instead of returning its bytes, also when the same bytes are put again', async () => {
    const bytes = Buffer.from('original');
    const { contentSha256 } = await store.put(tenantId, bytes);
    // Damage as a disk or a careless operator would, past the trigger.
    await sql.query(`ALTER TABLE blobs DISABLE TRIGGER blobs_never_updated`);
    await sql.query(`UPDATE blobs SET sealed = 'tampered'::bytea WHERE tenant_id = $1 AND content_sha256 = $2`, [tenantId, contentSha256]);
    await sql.query(`ALTER TABLE blobs ENABLE TRIGGER blobs_never_updated`);
    await expect(store.get(tenantId, contentSha256)).rejects.toBeInstanceOf(BlobCorruptedError);
    await expect(store.put(tenantId, bytes)).rejects.toBeInstanceOf(BlobCorruptedError);
  });

  it("seals a customer's evidence under the customer's key: once that key is destroyed the row no longer opens, and delete removes it", async () => {
    const customerId = randomUUID();
    const bytes = Buffer.from(`grabación de la llamada de ${customerId}`);
    const { contentSha256 } = await store.put(tenantId, bytes, customerId);
    expect(await store.get(tenantId, contentSha256, customerId)).toEqual(bytes);
    customerKeys.erase(tenantId, customerId);
    await expect(store.get(tenantId, contentSha256, customerId)).rejects.toBeInstanceOf(Error);
    expect(await store.delete(tenantId, contentSha256, customerId)).toBe(true);
    expect(await rowsOf(tenantId, blobAddress(contentSha256, customerId))).toEqual([]);
    expect(await store.has(tenantId, contentSha256, customerId)).toBe(false);
    expect(await store.delete(tenantId, contentSha256, customerId)).toBe(false);
  });

  it('refuses names that are not a canonical hash or tenant', async () => {
    await expect(store.get(tenantId, '../etc/passwd')).rejects.toBeInstanceOf(InvalidBlobNameError);
    await expect(store.has(tenantId, sha256(Buffer.from('x')).toUpperCase())).rejects.toBeInstanceOf(InvalidBlobNameError);
    await expect(store.put(tenantId.toUpperCase(), Buffer.from('x'))).rejects.toBeInstanceOf(InvalidBlobNameError);
  });

  describe("a customer's blobs (decision 0048)", () => {
    const opened: PostgresBlobStore[] = [];
    afterAll(() => Promise.all(opened.map((each) => each.close())));
    customerBlobsContract(() => ({
      store: (sealer) => {
        const each = new PostgresBlobStore(database.url, sealer);
        opened.push(each);
        return each;
      },
      addresses: async (tenant) => (await sql.query<{ content_sha256: string }>('SELECT content_sha256 FROM blobs WHERE tenant_id = $1', [tenant])).rows.map((row) => row.content_sha256),
      writeAt: async (tenant, address, sealed) => void (await sql.query('INSERT INTO blobs (tenant_id, content_sha256, sealed) VALUES ($1, $2, $3)', [tenant, address, sealed])),
    }));
  });
});
