import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEventStore, SQLITE_FILE_NAME } from '@ledger/event-store';
import type { StoredEventRow } from '@ledger/event-store/testing';
import { loadConfig } from '@ledger/platform';
import { ApiApp, startApiApp } from './support/api-app';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { CliResult, runCli } from './support/processes';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// README.md, "Operator CLI", `audit verify [--tenant TENANT_ID]`, and
// docs/architecture.md, "Integrity": a ledger written through the public API verifies
// intact; edited or removed in the SQLite file, the CLI reports where, with
// the stored and recomputed hashes, and exits non-zero while still printing
// its one JSON document.
describe('audit verify', () => {
  // Each CLI run is a new Node process (~2 s alone); the margin is for a loaded 2-core machine.
  const SLOW = 60_000;
  const MINUTE = 60_000;
  const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;
  const HEX64 = /^[0-9a-f]{64}$/;

  let environment: TestEnvironment;
  let file: string;
  let tenantA: string;
  let tenantB: string;
  /** Tenant A's consent with three facts: granted, a credit extension, revoked. */
  let revoked: GrantedConsent;
  /** Tenant A's consent still granted. */
  let granted: GrantedConsent;
  /** The whole ledger and tenant A's share of it, counted from the store. */
  let ledger: { streams: number; events: number };
  let ledgerOfA: { streams: number; events: number };

  const cli = (...args: string[]) => runCli(['audit', 'verify', ...args], environment.env);

  /** The envelope of libs/event-store/src/integrity.ts over a row's columns, computed here rather than by the code under test. */
  function recomputed(row: StoredEventRow): string {
    const envelope = [row.previous_hash ?? '', JSON.stringify(row.stream_id), String(row.revision), JSON.stringify(row.event_id), JSON.stringify(row.type), row.data, row.metadata].join('\n');
    return createHash('sha256').update(envelope, 'utf8').digest('hex');
  }

  /** Edits the file through its own connection, as someone with access to the data directory would. */
  function tamper<T>(edit: (db: Database.Database) => T): T {
    const db = new Database(file);
    try {
      return edit(db);
    } finally {
      db.close();
    }
  }

  function consentRows(db: Database.Database, consent: GrantedConsent): StoredEventRow[] {
    return db
      .prepare("SELECT * FROM events WHERE stream_id LIKE 'redec-consent-%' AND json_extract(data, '$.redecConsentId') = ? ORDER BY revision")
      .all(consent.redecConsentId) as StoredEventRow[];
  }

  /** The Merkle tree's part of the document (decision 0058): the whole ledger's, whatever the tenant. */
  const log = (firstMismatch: unknown = null) => ({ size: expect.any(Number), root: expect.any(String), checkpointsChecked: expect.any(Number), firstMismatch });

  /** The CLI's one JSON document on stdout, and its exit status (stdout and stderr in the comparison so that a failure shows them). */
  function expectDocument(result: CliResult, status: number, document: unknown) {
    expect({ status: result.status, json: result.json, stderr: result.stderr }).toEqual({ status, json: document, stderr: expect.any(String) });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  }

  beforeAll(async () => {
    // The tampering below edits the SQLite file.
    environment = testEnvironment(EMBEDDED_STORE);
    file = join(environment.dataDir, SQLITE_FILE_NAME);
    // No background writes: the ledger is exactly what the requests below record.
    const api: ApiApp = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    try {
      const a = await api.tenantKey([...SCOPES]);
      const b = await api.tenantKey([...SCOPES]);
      [tenantA, tenantB] = [a.tenantId, b.tenantId];
      const consentsOfA = redecConsents(api, a.apiKey);
      const post = (path: string, body: object) => api.http.post(path).set('Authorization', `Bearer ${a.apiKey}`).set('Idempotency-Key', randomUUID()).send(body);

      revoked = await consentsOfA.grant({ occurredAt: Date.now() - 2 * MINUTE });
      granted = await consentsOfA.grant();
      await consentsOfA.grant();
      await redecConsents(api, b.apiKey).grant();
      const extended = await post(`/v1/redec/consents/${revoked.redecConsentId}/credit-extensions`, {
        customerTenantId: revoked.customerId,
        objectiveCode: '02',
        creditOperationReference: `op-${randomUUID()}`,
        creditGrantedAt: revoked.grantedAt + MINUTE / 2,
        sourceSystem: 'core-loans',
        sourceReference: `loan-${randomUUID()}`,
      });
      expect(extended.status).toBe(201);
      const revocation = await post(`/v1/redec/consents/${revoked.redecConsentId}/revoke`, {
        channel: 'digital',
        occurredAt: Date.now() - 1_000,
        sourceType: 'direct',
        identityAssurance: 'client_authenticated',
      });
      expect(revocation.status).toBe(201);
    } finally {
      await api.close();
    }

    const store = createEventStore(loadConfig(environment.env, () => undefined));
    try {
      const events = await store.readAll();
      const ofA = events.filter((e) => e.metadata.tenantId === tenantA);
      ledger = { streams: new Set(events.map((e) => e.streamId)).size, events: events.length };
      ledgerOfA = { streams: new Set(ofA.map((e) => e.streamId)).size, events: ofA.length };
    } finally {
      await store.close();
    }
  }, SLOW);
  afterAll(async () => {
    await environment?.dispose();
  });

  it('reports the ledger written through the API as intact, whole and per tenant, and exits 0', async () => {
    // Two tenants, four consents (each a customer, an interaction, a grant and their claims), an extension, a revocation.
    expect(ledger.events).toBeGreaterThanOrEqual(30);
    expect(ledgerOfA.streams).toBeLessThan(ledger.streams);
    const [whole, ofA, unknownTenant] = await Promise.all([cli(), cli('--tenant', tenantA), cli('--tenant', randomUUID())]);
    expectDocument(whole, 0, { intact: true, ...ledger, firstBreak: null, log: log() });
    expect(Object.keys(whole.json)).toEqual(['intact', 'streams', 'events', 'firstBreak', 'log']);
    expect(whole.json.log.size).toBe(ledger.events);
    expectDocument(ofA, 0, { intact: true, ...ledgerOfA, firstBreak: null, log: log() });
    expect(ofA.json.log).toEqual(whole.json.log);
    // A tenant that does not exist is an error, not an intact ledger of nothing.
    expect(unknownTenant.status).toBe(1);
    expect(unknownTenant.json).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  }, SLOW);

  it("reports a grant's data edited in the file: that stream and revision, reason hash, stored and recomputed hashes; exit 1", async () => {
    const { edited, original } = tamper((db) => {
      const [grant] = consentRows(db, granted);
      expect(grant).toMatchObject({ type: 'ConsentGranted', revision: 0 });
      // One digit of grantedAt, still valid JSON with the same members.
      const data = grant.data.replace(/("grantedAt":\d*)(\d)/, (_, head: string, digit: string) => `${head}${(Number(digit) + 1) % 10}`);
      expect(data).not.toBe(grant.data);
      expect(Object.keys(JSON.parse(data) as object)).toEqual(Object.keys(JSON.parse(grant.data) as object));
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(data, grant.position);
      return { edited: { ...grant, data }, original: grant };
    });
    try {
      const [whole, ofA, ofB] = await Promise.all([cli(), cli('--tenant', tenantA), cli('--tenant', tenantB)]);
      const firstBreak = { stream: edited.stream_id, revision: 0, expected: recomputed(edited), found: original.hash, reason: 'hash' };
      // The tree is built from the facts' chain hashes, which the edit left as they were: only the chain shows it.
      expectDocument(whole, 1, { intact: false, ...ledger, firstBreak, log: log() });
      expect(firstBreak.expected).toMatch(HEX64);
      expect(firstBreak.expected).not.toBe(firstBreak.found);
      // The stored hash is the one the untouched row hashes to.
      expect(recomputed(original)).toBe(original.hash);
      expectDocument(ofA, 1, { intact: false, ...ledgerOfA, firstBreak, log: log() });
      // Another tenant's ledger is not affected by it; the keyring is the ledger's, neither tenant's (decision 0028).
      expectDocument(ofB, 0, { intact: true, streams: expect.any(Number), events: expect.any(Number), firstBreak: null, log: log() });
      expect(ofB.json.streams).toBe(ledger.streams - ledgerOfA.streams - 1);
    } finally {
      tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(original.data, original.position));
    }
  }, SLOW);

  it('reports an event deleted from the middle of a stream at the event after it, and in the tree at its leaf; exit 1', async () => {
    const { rows, leafIndex } = tamper((db) => {
      const facts = consentRows(db, revoked);
      expect(facts.map((r) => r.type)).toEqual(['ConsentGranted', 'CreditExtensionRegistered', 'RevocationRecorded']);
      const deletedLeaf = db.prepare('SELECT leaf_index FROM log_leaves WHERE position = ?').pluck().get(facts[1].position) as number;
      db.prepare('DELETE FROM events WHERE position = ?').run(facts[1].position);
      return { rows: facts, leafIndex: deletedLeaf };
    });
    const whole = await cli();
    expectDocument(whole, 1, {
      intact: false,
      streams: ledger.streams,
      events: ledger.events - 1,
      firstBreak: { stream: rows[2].stream_id, revision: 2, expected: '1', found: '2', reason: 'revision' },
      log: log({ leafIndex, reason: 'leaf_missing' }),
    });
  }, SLOW);
});
