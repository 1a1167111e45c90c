import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { SQLITE_FILE_NAME } from '@ledger/event-store';
import { TestDatabase, createTestDatabase } from '@ledger/event-store/testing';
import { CUSTOMER_KEYS_FILE_NAME, CUSTOMER_KEY_TABLE, CustomerKeyTable, CustomerKeyring, ReportKeyring, TenantKeyring, identityKey, streams } from '@ledger/ledger';
import { BlobProtection, IdentifierProtection } from '@ledger/platform';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { runCli } from './support/processes';
import { redecConfiguration, rutOf } from './support/redec-fixtures';
import { postgresContents } from './support/postgres-contents';
import { redisContents } from './support/redis-keys';
import { Document, webhookBodyMismatches } from './support/openapi-schema';
import { startWebhookReceiver } from './support/webhook-receiver';
import { binaryBody } from './support/text-body';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Past every floor set today: 5 years from a revocation made now, leap days included, and a week more. */
const FIVE_YEARS_AND_A_WEEK = (5 * 366 + 7) * DAY;

/** A RUT as RDC30 writes it: the body zero-padded to 9 digits, then the check digit. */
const fileRut = (rut: string) => rut.replace('-', '').padStart(10, '0');
/** Where RDC30's layout puts the data subject's RUT in a detail line (columns 49-58). */
const subjectRutIn = (line: string) => line.slice(48, 58);

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A tenant with a key and a published configuration. */
interface Bank {
  tenantId: string;
  apiKey: string;
  configurationId: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
/** A SHA-256 in every spelling a store could keep it in: hex, the raw digest, base64 and base64url. */
const spellingsOf = (digest: Buffer) => [Buffer.from(digest.toString('hex')), digest, Buffer.from(digest.toString('base64')), Buffer.from(digest.toString('base64url'))];

// Issue 16, item 6, "Done when": erasure after the retention floor, end to end, through the real HTTP stack, the CLI as operators run it and Redis,
// on each store a deployment runs on: the embedded SQLite files, and a PostgreSQL database (events, blobs and key table) of the suite's own.
describe.each(['SQLite', 'PostgreSQL'] as const)('erasure after the retention floor (%s)', (engine) => {
  let environment: TestEnvironment;
  let database: TestDatabase | undefined;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  let api: ApiApp;
  let tenantId: string;
  let apiKey: string;
  let configurationId: string;
  /** A second bank, which never opts in to the scheduled erasure. */
  let other: Bank;
  let rutBody = 17_000_000;
  const later = () => ({ ...environment.env, LEDGER_CLOCK_OFFSET_MS: String(FIVE_YEARS_AND_A_WEEK) });

  const get = (path: string) => api.http.get(path).set('Authorization', `Bearer ${apiKey}`);
  /** The report's bytes as ASCII. */
  const reportContent = async (reportId: string) => (await get(`/v1/redec/reports/${reportId}/content`).buffer(true)).text;
  /** An RDC30 of the period, once rendered. */
  async function renderedRdc30(period: { periodStart: number; periodEnd: number }) {
    const requested = await post('/v1/redec/reports', { kind: 'rdc30', ...period }, true);
    expect(requested.status).toBe(202);
    let report: { status: string } = requested.body;
    await waitUntil(async () => (report = (await get(`/v1/redec/reports/${requested.body.reportId}`)).body).status !== 'pending', 30_000);
    return report as { reportId: string; status: string; records: number; contentSha256: string };
  }
  const post = (path: string, body: object, idempotent = false, key = apiKey) => {
    const call = api.http.post(path).set('Authorization', `Bearer ${key}`);
    return (idempotent ? call.set('Idempotency-Key', randomUUID()) : call).send(body);
  };

  /** A customer with a RUT and a consent granted in person with a scanned original held by the service (by default one naming the RUT). */
  async function grantedCustomer(bank: Bank = { tenantId, apiKey, configurationId }, scanned?: Buffer) {
    const send = (path: string, body: object, idempotent = false) => post(path, body, idempotent, bank.apiKey);
    const rut = rutOf((rutBody += 7919));
    const userReference = `cliente-${randomUUID()}`;
    const identifiers = [{ system: 'cl-sii', type: 'rut', value: rut, verification: { method: 'cedula_presencial', sourceReference: 'suc-1', verifiedAt: Date.now() - MINUTE } }];
    const resolved = await send('/v1/customers/resolve', { userReference, identifiers });
    expect(resolved.status).toBe(201);
    const { customerId } = resolved.body;
    const opened = await send('/v1/redec/consent-interactions', { configurationId: bank.configurationId, customerId });
    expect(opened.status).toBe(201);
    // A scan that names the data subject: its bytes must go with the erasure.
    const scan = scanned ?? Buffer.concat([Buffer.from(`%PDF-1.4 mandato firmado por RUT ${rut} `), randomBytes(256)]);
    const granted = await send(`/v1/redec/consent-interactions/${opened.body.interactionId}/grant`, {
      occurredAt: Date.now() - MINUTE,
      sourceSystem: 'sucursal',
      sourceReference: `cap-${randomUUID()}`,
      evidence: { kind: 'physical_document', digitizedAt: Date.now() - MINUTE, mediaType: 'application/pdf', contentBase64: scan.toString('base64') },
    });
    expect(granted.status).toBe(201);
    const { redecConsentId, internalConsentCode } = granted.body;
    return { rut, userReference, identifiers, customerId, redecConsentId, internalConsentCode, scan };
  }

  /** As grantedCustomer, with the consent revoked: past its floor five years and a week later. */
  async function revokedCustomer(bank: Bank = { tenantId, apiKey, configurationId }, scanned?: Buffer) {
    const customer = await grantedCustomer(bank, scanned);
    const revoked = await post(`/v1/redec/consents/${customer.redecConsentId}/revoke`, { channel: 'in_person', occurredAt: Date.now() - 1000, sourceType: 'direct', identityAssurance: 'client_authenticated' }, true, bank.apiKey);
    expect(revoked.body.effective).toBe(true);
    return customer;
  }

  /** The artifact's download: its status, and its body as bytes. */
  async function download(redecConsentId: string): Promise<{ status: number; body: Buffer }> {
    const response = await get(`/v1/redec/consents/${redecConsentId}/artifact/download`)
      .buffer(true)
      .parse(binaryBody);
    return { status: response.status, body: response.body as Buffer };
  }

  /**
   * Everything the deployment stores, as bytes: the data directory's files (the SQLite ledger, key table and blobs; on
   * PostgreSQL whatever is left there), every row of every PostgreSQL table, and every Redis value of the suite's prefix.
   * What PostgreSQL keeps of deleted rows until VACUUM is in decisions 0035 and 0045.
   */
  async function storedBytes(): Promise<Buffer[]> {
    // Read by another process: closing a descriptor of ledger.sqlite in this one would drop the POSIX locks the in-process
    // API holds on it, and the CLI's writes that follow would corrupt the database (sqlite.org/howtocorrupt.html, 2.2).
    const files = filesUnder(environment.dataDir).map((file) => execFileSync('cat', [file], { maxBuffer: 1 << 30 }));
    const rows = database ? (await postgresContents(database.url)).values : [];
    return [...files, ...rows, await redisContents(environment.prefix)];
  }

  /** A blob's bytes as the blob store keeps them (sealed): its file under the data directory, or its row in PostgreSQL. */
  async function storedBlob(name: string): Promise<Buffer> {
    if (!database) return readFileSync(filesUnder(environment.dataDir).find((file) => file.endsWith(`/${name}`))!);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<{ sealed: Buffer }>('SELECT sealed FROM blobs WHERE content_sha256 = $1', [name])).rows[0].sealed;
    } finally {
      await client.end();
    }
  }

  /** Stores sealed bytes at a blob name as the blob store did before decision 0048, below its port: a file, or a row of `blobs`. */
  async function storeAsBefore(name: string, sealed: Buffer): Promise<void> {
    if (!database) {
      const path = join(environment.dataDir, 'blobs', tenantId, name.slice(0, 2), name.slice(2, 4), name);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, sealed, { mode: 0o400 });
      return;
    }
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('INSERT INTO blobs (tenant_id, content_sha256, sealed) VALUES ($1, $2, $3)', [tenantId, name, sealed]);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    // Each engine is proven whatever DATABASE_URL the run has: SQLite stays embedded, PostgreSQL gets a fresh database.
    database = engine === 'PostgreSQL' ? await createTestDatabase() : undefined;
    environment = testEnvironment(database ? { DATABASE_URL: database.url } : EMBEDDED_STORE);
    api = await startApiApp(environment);
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:audit', 'consent:report']));
    expect((await api.http.put('/v1/tenant-settings').set('Authorization', `Bearer ${apiKey}`).send({ institutionCode: '0000000042' })).status).toBe(200);
    const published = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}`, channel: 'in_person' }));
    expect(published.status).toBe(201);
    configurationId = published.body.configurationId;
    const otherKey = await api.tenantKey(['consent:admin', 'consent:write', 'consent:identity-assert']);
    const otherConfiguration = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}`, channel: 'in_person' }), false, otherKey.apiKey);
    other = { ...otherKey, configurationId: otherConfiguration.body.configurationId };
  });
  afterAll(async () => {
    await receiver?.close();
    await api?.close();
    await environment?.dispose();
    await database?.drop();
  });

  it('destroys the key of a customer whose consents are all past their floor, leaving the ledger intact and the RUT unrecoverable; a legal hold keeps another', async () => {
    const periodStart = Date.now() - 2 * MINUTE;
    const erased = await revokedCustomer();
    const held = await revokedCustomer();
    // The bank hears of its files by webhook: the queued message stays in Redis, where the scan below reads it.
    receiver = await startWebhookReceiver();
    const endpoint = await post('/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['report.created'] });
    expect(endpoint.status).toBe(201);
    // The week's RDC30, rendered before the erasure, names both by RUT.
    const period = { periodStart, periodEnd: Date.now() - 1 };
    const sent = await renderedRdc30(period);
    expect(sent).toMatchObject({ status: 'ready', records: 2 });
    const sentFile = await reportContent(sent.reportId);
    expect(sentFile).toContain(fileRut(erased.rut));
    expect(sentFile).toContain(fileRut(held.rut));
    // While the content is held, the report, its download and the webhook give its hash (docs/reference/reports.md).
    const sentDigest = sha256(Buffer.from(sentFile, 'ascii'));
    expect(sent.contentSha256).toBe(sentDigest.toString('hex'));
    await receiver.waitForCount(1, 30_000);
    expect(JSON.parse(receiver.received[0].body).data).toMatchObject({ report_id: sent.reportId, content_sha256: sent.contentSha256 });
    // As the OpenAPI document's webhooks section describes it.
    expect(webhookBodyMismatches((await api.http.get('/openapi.json')).body as Document, JSON.parse(receiver.received[0].body))).toEqual([]);
    // What a holder of the master key would test RUT guesses against: the file's hash, and the hash of each line naming the erased subject.
    const erasedLines = sentFile.split('\r\n').filter((line) => subjectRutIn(line) === fileRut(erased.rut));
    expect(erasedLines).toHaveLength(1);
    const oracles = [...spellingsOf(sentDigest), ...erasedLines.flatMap((line) => [Buffer.from(line.slice(72)), ...spellingsOf(sha256(Buffer.from(line.slice(0, 72), 'ascii')))])];
    expect(erasedLines[0].slice(72)).toBe(sha256(Buffer.from(erasedLines[0].slice(0, 72), 'ascii')).toString('hex'));
    // Decision 0045: the log, the blob store and the queued message hold it only under the report's key, never in clear.
    const [, renderedFact] = await api.store.readStream(redecStreams.report(tenantId, sent.reportId));
    const { contentBlob, protectedContentSha256 } = renderedFact.data as { contentBlob: string; protectedContentSha256: string };
    const reportKey = (await api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE).findReportKey(tenantId, sent.reportId))!;
    expect(reportKey.wrappedKey).toEqual(expect.any(String));
    const before = await storedBytes();
    expect(before.some((bytes) => bytes.includes(Buffer.from(protectedContentSha256)))).toBe(true);
    expect(before.some((bytes) => bytes.includes(Buffer.from(reportKey.wrappedKey!)))).toBe(true);
    for (const oracle of spellingsOf(sentDigest)) expect(before.some((bytes) => bytes.includes(oracle))).toBe(false);
    const hold = await post(`/v1/customers/${held.customerId}/legal-holds`, { reason: 'litigio', reference: 'causa C-118-2026' }, true);
    expect(hold.status).toBe(201);

    // What could find or open the customer's data before: the blind index entry, the ciphertext in the ledger, the wrapped key.
    const protection = api.app.get(IdentifierProtection);
    const keyTable = api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE);
    const [registered] = await api.store.readStream(streams.customer(tenantId, erased.customerId));
    const { identifiers } = registered.data as { identifiers: Array<{ value: { ciphertext: string } }> };
    const ciphertext = identifiers[0].value.ciphertext;
    expect(await protection.decrypt(tenantId, ciphertext)).toBe(erased.rut);
    const blobs = api.app.get<BlobStore>(BLOB_STORE);
    expect(await blobs.has(tenantId, contentBlob)).toBe(true);
    const sealedBlob = await storedBlob(contentBlob);
    const blindIndexEntry = await protection.hash(tenantId, 'identifier', identityKey({ system: 'cl-sii', type: 'rut', value: erased.rut }));
    const { wrappedKey } = (await keyTable.find(tenantId, erased.customerId))!;
    expect(wrappedKey).not.toBeNull();

    // Today nothing is past its floor.
    const today = await runCli(['retention', 'status', '--tenant', tenantId], environment.env);
    expect(today.status).toBe(0);
    expect(today.json).toMatchObject({ tenantId, consentsPastFloor: [], erasableCustomers: [], onLegalHold: [], erasedCustomers: 0 });

    // Five years and a week later.
    const status = await runCli(['retention', 'status', '--tenant', tenantId], later());
    expect(status.status).toBe(0);
    expect(status.json.consentsPastFloor).toEqual([{ redecConsentId: erased.redecConsentId, customerId: erased.customerId, retentionUntil: expect.any(Number), retentionBasis: 'revocation' }]);
    expect(status.json.erasableCustomers).toEqual([erased.customerId]);
    expect(status.json.onLegalHold).toEqual([{ customerId: held.customerId, legalHoldIds: [hold.body.legalHoldId] }]);

    const dryRun = await runCli(['retention', 'erase', '--tenant', tenantId, '--dry-run'], later());
    expect(dryRun.json).toMatchObject({ dryRun: true, erasedCustomers: [erased.customerId], skippedOnHold: [held.customerId], erasedReports: [sent.reportId] });
    expect(await protection.decrypt(tenantId, ciphertext)).toBe(erased.rut);

    const erasure = await runCli(['retention', 'erase', '--tenant', tenantId], later());
    expect(erasure.status).toBe(0);
    // Recorded under the customer's own key: nothing of it stays under the tenant key.
    expect(erasure.json).toMatchObject({ tenantId, dryRun: false, erasedCustomers: [erased.customerId], skippedOnHold: [held.customerId], erasedReports: [sent.reportId], sealedUnderTenantKey: [] });
    const again = await runCli(['retention', 'erase', '--tenant', tenantId], later());
    expect(again.json).toMatchObject({ erasedCustomers: [], skippedOnHold: [held.customerId], erasedReports: [] });

    // The fact is in the ledger, and every chain is intact.
    const facts = await api.store.readStream(streams.customer(tenantId, erased.customerId));
    expect(facts.map((e) => e.type)).toEqual(['CustomerRegistered', 'CustomerDataErased']);
    expect(facts[1].data).toMatchObject({ customerId: erased.customerId, redecConsentIds: [erased.redecConsentId], deletedBlobs: [expect.stringMatching(/^[0-9a-f]{64}$/)] });
    const verify = await runCli(['audit', 'verify'], environment.env);
    expect(verify.status).toBe(0);
    expect(verify.json).toMatchObject({ intact: true, firstBreak: null });

    // Not recoverable with the master key: the key is gone from the key table, the ciphertext opens no more.
    expect(await keyTable.find(tenantId, erased.customerId)).toMatchObject({ wrappedKey: null, erasedAt: expect.any(Number) });
    await expect(protection.decrypt(tenantId, ciphertext)).rejects.toMatchObject({ code: 'customer_data_erased' });

    const rutForms = [erased.rut, erased.rut.replace('-', ''), `${erased.rut.slice(0, 2)}.${erased.rut.slice(2, 5)}.${erased.rut.slice(5)}`, fileRut(erased.rut)];

    // The report rendered before the erasure keeps its record, but its content is gone, under every key.
    const erasedContent = await get(`/v1/redec/reports/${sent.reportId}/content`);
    expect({ status: erasedContent.status, type: erasedContent.type, code: erasedContent.body.code }).toEqual({ status: 410, type: 'application/problem+json', code: 'report_content_erased' });
    // Its record stays, without the hash, which went with the report's key (decision 0045).
    expect((await get(`/v1/redec/reports/${sent.reportId}`)).body).toMatchObject({ status: 'ready', records: 2, contentSha256: null, contentErasedAt: expect.any(Number) });
    expect(await blobs.has(tenantId, contentBlob)).toBe(false);
    expect(await keyTable.findReportKey(tenantId, sent.reportId)).toMatchObject({ wrappedKey: null, erasedAt: expect.any(Number) });
    expect(await api.app.get(ReportKeyring).keyOf(tenantId, sent.reportId)).toBeNull();
    expect((await api.store.readStream(redecStreams.report(tenantId, sent.reportId))).map((e) => e.type)).toEqual(['ReportRequested', 'ReportRendered', 'ReportContentErased']);
    // The same period asked for after the erasure shows the erased subject's RUT as absent, the held one's as before.
    const after = await renderedRdc30(period);
    expect(after).toMatchObject({ status: 'ready', records: 2 });
    const lines = (await reportContent(after.reportId)).split('\r\n');
    expect(subjectRutIn(lines.find((line) => line.startsWith(erased.internalConsentCode))!)).toBe('0000000000');
    expect(subjectRutIn(lines.find((line) => line.startsWith(held.internalConsentCode))!)).toBe(fileRut(held.rut));
    // Its report.created goes out as the first did; the suite's later tests count facts, so the attempt must be recorded first.
    await receiver.waitForCount(2, 30_000);
    const deliveries = () => get(`/v1/webhook-endpoints/${endpoint.body.endpointId}/deliveries`);
    await waitUntil(async () => (await deliveries()).body.items?.length === 2, 30_000);
    // The erased file's report.created, redelivered now, sends nothing: its hash no longer opens.
    const firstMessageId = JSON.parse(receiver.received[0].body).id;
    expect((await post(`/v1/webhook-endpoints/${endpoint.body.endpointId}/messages/${firstMessageId}/redeliver`, {})).status).toBe(202);
    await waitUntil(async () => (await deliveries()).body.items?.length === 3, 30_000);
    expect((await deliveries()).body.items[0]).toMatchObject({ messageId: firstMessageId, outcome: 'skipped', error: 'report_content_erased' });
    expect(receiver.received).toHaveLength(2);

    // Exports list the erased customer's consent, and no spelling of its RUT.
    const listed = await get('/v1/redec/consent-exports?limit=200');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { redecConsentId: string }) => item.redecConsentId)).toContain(erased.redecConsentId);
    const exported = await runCli(['export', 'consents', '--tenant', tenantId], environment.env);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toContain(erased.redecConsentId);
    for (const form of rutForms) expect([listed.text, exported.stdout].some((text) => text.includes(form))).toBe(false);

    // No byte of the RUT, the scan, the blind index entry or the wrapped keys is left where the deployment stores anything
    // (ledger, key table, blobs: files or PostgreSQL tables) or in Redis; nor the file's hash or its lines' hashes, in any
    // spelling, which re-rendering the file with the true RUT would let a holder of the master key match; nor the erased blob.
    if (database) {
      expect((await postgresContents(database.url)).tables).toEqual(expect.arrayContaining(['events', 'blobs', 'customer_keys', 'blind_index', 'report_keys']));
    } else {
      expect(filesUnder(environment.dataDir)).toEqual(expect.arrayContaining([join(environment.dataDir, SQLITE_FILE_NAME), join(environment.dataDir, CUSTOMER_KEYS_FILE_NAME)]));
    }
    const everything = await storedBytes();
    const secrets: Array<[string, Buffer]> = [
      ...rutForms.map((form): [string, Buffer] => [`RUT ${form}`, Buffer.from(form)]),
      ...Object.entries({ blindIndexEntry, wrappedKey: wrappedKey!, reportKey: reportKey.wrappedKey! }).map(([name, text]): [string, Buffer] => [name, Buffer.from(text)]),
      ...oracles.map((oracle, index): [string, Buffer] => [`hash ${index}`, oracle]),
      ['scan head', erased.scan.subarray(0, 24)],
      ['scan body', erased.scan.subarray(100, 132)],
      // The erased file's blob, as the blob store held it (a file, or a row of `blobs`).
      ['stored blob', sealedBlob.subarray(sealedBlob.length - 48)],
    ];
    expect(secrets.filter(([, secret]) => everything.some((bytes) => bytes.includes(secret))).map(([name]) => name)).toEqual([]);
    // The protected hash is still in the log: with its key gone it opens under no key.
    expect(everything.some((bytes) => bytes.includes(Buffer.from(protectedContentSha256)))).toBe(true);
    // The held customer's RUT, in the same places, is still there: the scan reads what it claims to.
    const heldEntry = Buffer.from(await protection.hash(tenantId, 'identifier', identityKey({ system: 'cl-sii', type: 'rut', value: held.rut })));
    expect(everything.some((bytes) => bytes.includes(heldEntry))).toBe(true);

    // Resolution does not find the customer: the same reference and RUT are a new customer.
    const resolvedAgain = await post('/v1/customers/resolve', { userReference: erased.userReference, identifiers: erased.identifiers });
    expect(resolvedAgain.status).toBe(201);
    expect(resolvedAgain.body.customerId).not.toBe(erased.customerId);
    // And the erased customer takes nothing new.
    expect((await post('/v1/redec/consent-interactions', { configurationId, customerId: erased.customerId })).body).toMatchObject({ status: 409, code: 'customer_data_erased' });

    // The regulatory read still answers; the evidence bytes are gone.
    const read = await api.http.get(`/v1/redec/consents/${erased.redecConsentId}`).set('Authorization', `Bearer ${apiKey}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ redecConsentId: erased.redecConsentId, status: 'revoked', retentionBasis: 'revocation' });
    expect((await api.http.get(`/v1/redec/consents/${erased.redecConsentId}/artifact/download`).set('Authorization', `Bearer ${apiKey}`)).body).toMatchObject({ status: 409, code: 'customer_data_erased' });
    // The held customer's evidence is still there.
    const heldDownload = await api.http.get(`/v1/redec/consents/${held.redecConsentId}/artifact/download`).set('Authorization', `Bearer ${apiKey}`).buffer(true);
    expect(heldDownload.status).toBe(200);

    // The replay answers, with the identifiers shown as erased.
    const replay = await runCli(['audit', 'replay', '--tenant', tenantId, '--consent', erased.redecConsentId], environment.env);
    expect(replay.status).toBe(0);
    expect(replay.json.dataSubject).toEqual({ customerId: erased.customerId, erasedAt: expect.any(Number) });
    expect(replay.json.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['ConsentGranted', 'RevocationRecorded']));

  }, 240_000);

  it('refuses an unknown tenant and a missing --tenant with one JSON error, erasing nothing', async () => {
    const before = await api.store.headPosition();
    const [unknown, missing] = await Promise.all([
      runCli(['retention', 'erase', '--tenant', randomUUID()], later()),
      runCli(['retention', 'status'], later()),
    ]);
    expect(unknown).toMatchObject({ status: 1, json: { error: { code: 'NOT_FOUND' } } });
    expect(missing).toMatchObject({ status: 2, json: { error: { code: 'USAGE', message: expect.stringMatching(/--tenant/) } } });
    expect(await api.store.headPosition()).toBe(before);
  }, 120_000);

  // Decision 0048: the same bytes supplied by two customers are two blobs, each under its own customer's key.
  it("erases a customer's evidence and leaves another customer's byte-identical evidence readable, byte for byte", async () => {
    const scan = Buffer.concat([Buffer.from('%PDF-1.4 formulario de mandato de la sucursal '), randomBytes(256)]);
    const contentSha256 = sha256(scan).toString('hex');
    const erased = await revokedCustomer(undefined, scan);
    // Granted, not revoked: five years and a week later its consent is not past its floor.
    const kept = await grantedCustomer(undefined, scan);
    // The artifact's contentSha256 is the content's, for both.
    for (const { redecConsentId } of [erased, kept]) expect((await get(`/v1/redec/consents/${redecConsentId}/artifact`)).body).toMatchObject({ status: 'ready', contentSha256 });
    expect(await download(kept.redecConsentId)).toEqual({ status: 200, body: scan });

    const erasure = await runCli(['retention', 'erase', '--tenant', tenantId], later());
    expect(erasure.status).toBe(0);
    expect(erasure.json.erasedCustomers).toContain(erased.customerId);
    expect(erasure.json.erasedCustomers).not.toContain(kept.customerId);

    expect(await download(kept.redecConsentId)).toEqual({ status: 200, body: scan });
    expect((await get(`/v1/redec/consents/${erased.redecConsentId}/artifact/download`)).body).toMatchObject({ status: 409, code: 'customer_data_erased' });
    const blobs = api.app.get<BlobStore>(BLOB_STORE);
    expect(await blobs.has(tenantId, contentSha256, erased.customerId)).toBe(false);
    expect(await blobs.get(tenantId, contentSha256, kept.customerId)).toEqual(scan);
  }, 120_000);

  it("keeps evidence stored before decision 0048 readable: one blob two customers shared, under the first's key, is copied to the other's before that key is destroyed", async () => {
    const scan = Buffer.concat([Buffer.from('%PDF-1.4 formulario de mandato guardado antes '), randomBytes(256)]);
    const contentSha256 = sha256(scan).toString('hex');
    const erased = await revokedCustomer(undefined, scan);
    const kept = await grantedCustomer(undefined, scan);
    // The blob store as the earlier version left it: one blob named by the plain hash, sealed under the key of the
    // customer that stored the bytes first, and no copy of either customer's own.
    const blobs = api.app.get<BlobStore>(BLOB_STORE);
    for (const { customerId } of [erased, kept]) expect(await blobs.delete(tenantId, contentSha256, customerId)).toBe(true);
    const sealer = new BlobProtection(api.app.get(TenantKeyring), api.app.get(CustomerKeyring));
    await storeAsBefore(contentSha256, await sealer.seal(tenantId, contentSha256, scan, erased.customerId));
    // Read there, by both.
    expect(await download(erased.redecConsentId)).toEqual({ status: 200, body: scan });
    expect(await download(kept.redecConsentId)).toEqual({ status: 200, body: scan });

    const erasure = await runCli(['retention', 'erase', '--tenant', tenantId], later());
    expect(erasure.status).toBe(0);
    expect(erasure.json.erasedCustomers).toContain(erased.customerId);

    expect(await download(kept.redecConsentId)).toEqual({ status: 200, body: scan });
    expect((await get(`/v1/redec/consents/${erased.redecConsentId}/artifact/download`)).body).toMatchObject({ status: 409, code: 'customer_data_erased' });
    // The shared blob, sealed under the destroyed key, is gone; the kept customer's copy is its own.
    expect(await blobs.has(tenantId, contentSha256)).toBe(false);
    expect(await blobs.has(tenantId, contentSha256, kept.customerId)).toBe(true);
  }, 120_000);

  it('erases on LEDGER_RETENTION_ERASE_SCHEDULE, with nobody running the CLI, the customers of the tenants that opted in only', async () => {
    const erased = await revokedCustomer();
    const held = await revokedCustomer();
    const notOptedIn = await revokedCustomer(other);
    expect((await post(`/v1/customers/${held.customerId}/legal-holds`, { reason: 'litigio', reference: 'causa C-7-2026' }, true)).status).toBe(201);
    // The bank opts in; a setting that is not a boolean is refused and changes nothing.
    const settings = (body: object) => api.http.put('/v1/tenant-settings').set('Authorization', `Bearer ${apiKey}`).send(body);
    expect((await settings({ institutionCode: '0000000042', scheduledErasure: 'yes' })).body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect((await get('/v1/tenant-settings')).body).toMatchObject({ scheduledErasure: false });
    expect((await settings({ institutionCode: '0000000042', scheduledErasure: true })).body).toMatchObject({ institutionCode: '0000000042', scheduledErasure: true });
    // The same ledger five years and a week later, under a service that runs erasure every second.
    await api.close();
    api = await startApiApp(environment, { LEDGER_CLOCK_OFFSET_MS: String(FIVE_YEARS_AND_A_WEEK), LEDGER_RETENTION_ERASE_SCHEDULE: '* * * * * *' });
    const erasedFacts = async (customerId: string, tenant = tenantId) => (await api.store.readStream(streams.customer(tenant, customerId))).filter((e) => e.type === 'CustomerDataErased');
    // The fact first, then the key: done once the key is gone.
    await waitUntil(async () => (await api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE).find(tenantId, erased.customerId))?.wrappedKey === null, 60_000, 250);
    expect(await erasedFacts(erased.customerId)).toHaveLength(1);
    expect(await erasedFacts(held.customerId)).toEqual([]);
    expect((await api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE).find(tenantId, held.customerId))?.wrappedKey).toEqual(expect.any(String));
    // The bank that did not opt in keeps its customer's data: runs pass its tenant by.
    expect(await erasedFacts(notOptedIn.customerId, other.tenantId)).toEqual([]);
    expect((await api.app.get<CustomerKeyTable>(CUSTOMER_KEY_TABLE).find(other.tenantId, notOptedIn.customerId))?.wrappedKey).toEqual(expect.any(String));
    // Actor of the fact: the scheduled run, not an operator.
    expect((await erasedFacts(erased.customerId))[0].metadata.actor).toBe('worker:retention-erasure');
  }, 180_000);
});
