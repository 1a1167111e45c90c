import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redecStreams } from '@ledger/redec';
import { issueApiKey, streams } from '@ledger/ledger';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { runCli } from './support/processes';
import { redecConsents } from './support/redec-consents';
import { initialWindowAccess, redecConfiguration, rutOf } from './support/redec-fixtures';
import { binaryBody } from './support/text-body';

// Issue 16, items 1 to 3 and 5: the facts RDC30 and RDC31 need (tenant
// settings, executive, mandatary), and the reports rendered from them,
// through the real HTTP stack, SQLite store, Redis and queues.
describe('regulatory reports', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let reader: string;
  const EXECUTIVE_RUT = '7.654.321-6';
  const MANDATARY_RUT = '12.345.678-5';

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const DAY = 86_400_000;

  /** An authorize request of the initial window for a consent granted by redecConsents(), with `extra` members. */
  const initialWindow = (redecConsentId: string, extra: Record<string, unknown> = {}) => ({ ...initialWindowAccess(redecConsentId), ...extra });

  /** Asks for a report and waits until it is no longer pending. */
  async function renderedReport(body: object, apiKey = key): Promise<any> {
    const requested = await api.http.post('/v1/redec/reports').set({ ...auth(apiKey), 'Idempotency-Key': randomUUID() }).send(body);
    expect({ status: requested.status, body: requested.body }).toEqual({ status: 202, body: { reportId: expect.any(String), status: 'pending' } });
    let report: any;
    await waitUntil(async () => (report = (await api.http.get(`/v1/redec/reports/${requested.body.reportId}`).set(auth(apiKey))).body).status !== 'pending', 30_000);
    return report;
  }
  const content = (reportId: string, apiKey = key) => api.http.get(`/v1/redec/reports/${reportId}/content`).set(auth(apiKey)).buffer(true).parse(binaryBody);

  beforeAll(async () => {
    // One test reads the stored content off the embedded store's files (SQLite even in a run on PostgreSQL); blobs in
    // PostgreSQL are sealed by the same BlobProtection (postgres-blob-store.spec.ts).
    environment = testEnvironment(EMBEDDED_STORE);
    api = await startApiApp(environment);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert', 'consent:report']));
    ({ apiKey: reader } = await api.tenantKey(['consent:read']));
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('tenant settings', () => {
    it('start without an institution code, take one of 10 digits, and record a change only when it changes', async () => {
      const other = await api.tenantKey(['consent:admin'], { presentation: false });
      expect((await api.http.get('/v1/tenant-settings').set(auth(other.apiKey))).body).toEqual({
        institutionCode: null,
        weeklyReports: false,
        dailyRightsReport: false,
        scheduledErasure: false,
        presentation: null,
        updatedAt: null,
      });
      const put = await api.http.put('/v1/tenant-settings').set(auth(other.apiKey)).send({ institutionCode: '0000000042' });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ institutionCode: '0000000042', weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null, updatedAt: expect.any(Number) });
      expect((await api.http.get('/v1/tenant-settings').set(auth(other.apiKey))).body).toEqual(put.body);
      await recordsNothingAtAll(api, async () => expect((await api.http.put('/v1/tenant-settings').set(auth(other.apiKey)).send({ institutionCode: '0000000042' })).body).toEqual(put.body));
      const facts = await api.store.readStream(streams.tenant(other.tenantId));
      expect(facts.map((e) => e.type)).toEqual(['TenantCreated', 'TenantSettingsChanged']);
    });

    it('refuse a code that is not 10 digits, an unknown field, and a key without consent:admin, changing nothing', async () => {
      await recordsNothingAtAll(api, async () => {
        expectValidationError(await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '12345' }), [{ field: 'institutionCode', reason: 'invalid_institution_code' }]);
        expectProblem(await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '0000000001', name: 'x' }), 400, 'VALIDATION_ERROR');
        expectProblem(await api.http.put('/v1/tenant-settings').set(auth(reader)).send({ institutionCode: '0000000001' }), 403, 'INSUFFICIENT_SCOPE');
      });
    });
  });

  describe('executive and mandatary', () => {
    it('keep the executive of an in-person grant and the mandatary of an access only protected, and never show them back', async () => {
      const consent = await redecConsents(api, key, { channel: 'in_person' }).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } });
      const authorized = await api.http
        .post('/v1/redec/accesses/authorize')
        .set(auth())
        .send(initialWindow(consent.redecConsentId, { mandatary: { identifierRutInput: MANDATARY_RUT } }));
      expect(authorized.status).toBe(201);
      expect(JSON.stringify(authorized.body)).not.toMatch(/12345678|mandatary/);

      const [grant] = await api.store.readStream(redecStreams.consent(tenantId, consent.redecConsentId));
      const [decision] = await api.store.readStream(redecStreams.access(tenantId, authorized.body.decision.redecAccessId));
      expect((grant.data as any).executive).toEqual({ identifierRut: { hash: expect.any(String), ciphertext: expect.stringMatching(/^v2\./) } });
      expect((decision.data as any).request.mandatary).toEqual({ identifierRut: { hash: expect.any(String), ciphertext: expect.stringMatching(/^v2\./) } });
      for (const stored of [grant, decision]) expect(JSON.stringify(stored)).not.toMatch(/7654321|12345678/);
    });

    it('take a mandatary sent as null as none, as validation does, instead of failing', async () => {
      const consent = await redecConsents(api, key, { channel: 'in_person' }).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } });
      const authorized = await api.http.post('/v1/redec/accesses/authorize').set(auth()).send(initialWindow(consent.redecConsentId, { mandatary: null }));
      expect(authorized.status).toBe(201);
      const [decision] = await api.store.readStream(redecStreams.access(tenantId, authorized.body.decision.redecAccessId));
      expect((decision.data as any).request.mandatary).toBeUndefined();
    });

    it('keep the executive of a Multi-Consent item captured in person, protected in the decision and in the consent', async () => {
      const configuration = await api.http.post('/v1/configurations').set(auth()).send(redecConfiguration({ templateKey: `redec-${randomUUID()}`, channel: 'in_person' }));
      const decided = await api.http
        .post('/v1/consent-decisions')
        .set({ ...auth(), 'Idempotency-Key': randomUUID() })
        .send({
          userReference: `cliente-${randomUUID()}`,
          identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(25_123_457), verification: { method: 'cedula', sourceReference: 'v-1', verifiedAt: Date.now() - 60_000 } }],
          occurredAt: Date.now() - 60_000,
          sourceSystem: 'sucursal',
          sourceReference: `decision-${randomUUID()}`,
          items: [
            {
              configurationId: configuration.body.configurationId,
              decision: 'accepted',
              redec: { evidence: { kind: 'electronic', authentication: { method: 'cedula', reference: 'a-1' } }, executive: { identifierRutInput: EXECUTIVE_RUT } },
            },
          ],
        });
      expect(decided.status).toBe(201);
      const [grant] = await api.store.readStream(redecStreams.consent(tenantId, decided.body.items[0].redecConsentId));
      expect((grant.data as any).executive).toEqual({ identifierRut: { hash: expect.any(String), ciphertext: expect.stringMatching(/^v2\./) } });
      const decisionFacts = (await api.store.readAll()).filter((e) => e.type === 'ConsentDecisionRecorded');
      for (const stored of [grant, ...decisionFacts]) expect(JSON.stringify(stored)).not.toMatch(/7654321/);
    });

    it('refuse an executive on a digital capture and an invalid mandatary RUT, naming the field', async () => {
      await expect(redecConsents(api, key).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } })).rejects.toThrow(/grant: 400 .*executive_not_for_digital_channel/);
      const consent = await redecConsents(api, key).grant();
      const refused = await api.http
        .post('/v1/redec/accesses/authorize')
        .set(auth())
        .send(initialWindow(consent.redecConsentId, { mandatary: { identifierRutInput: '12.345.678-0' } }));
      expectValidationError(refused, [{ field: 'mandatary.identifierRutInput', reason: 'invalid_rut' }]);
    });
  });

  describe('RDC30 and RDC31', () => {
    let period: { periodStart: number; periodEnd: number };
    let inPerson: Awaited<ReturnType<ReturnType<typeof redecConsents>['grant']>>;
    let digital: typeof inPerson;

    beforeAll(async () => {
      expect((await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '0000000077' })).status).toBe(200);
      inPerson = await redecConsents(api, key, { channel: 'in_person' }).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } });
      digital = await redecConsents(api, key).grant();
      const authorized = await api.http.post('/v1/redec/accesses/authorize').set(auth()).send(initialWindow(digital.redecConsentId, { mandatary: { identifierRutInput: MANDATARY_RUT } }));
      const confirmed = await api.http
        .post(`/v1/redec/accesses/${authorized.body.decision.redecAccessId}/confirm`)
        .set(auth())
        .send({ outcome: { kind: 'accessed', accessedAt: Date.now() - 500 } });
      expect(confirmed.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
      // A period that has ended and holds everything recorded so far.
      period = { periodEnd: Date.now() - 1, periodStart: Date.now() - DAY };
    });

    it('renders RDC30 as the exact ASCII bytes its contentSha256 names, one line of the record length per consent, with RUTs only in the file', async () => {
      const report = await renderedReport({ kind: 'rdc30', ...period });
      expect(report).toMatchObject({ kind: 'rdc30', status: 'ready', ...period, layoutVersion: 'rdc30-2026.1', institutionCode: '0000000077', contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(JSON.stringify(report)).not.toMatch(/7654321|12345678/);
      const file = await content(report.reportId);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('text/plain; charset=us-ascii');
      const bytes = file.body as Buffer;
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(report.contentSha256);
      const lines = bytes.toString('ascii').split('\r\n');
      expect(lines.pop()).toBe('');
      for (const line of lines) expect(line).toHaveLength(136);
      expect(lines[0].slice(0, 15)).toBe('0000000077RDC30');
      expect(report.records).toBe(lines.length - 1);
      const lineOf = (code: string) => lines.find((line) => line.startsWith(code))!;
      expect(lineOf(inPerson.internalConsentCode).slice(62, 72)).toBe('0076543216');
      expect(lineOf(digital.internalConsentCode).slice(62, 72)).toBe('0000000000');
      expect(report.metadata).toMatchObject({ totalRecords: lines.length - 1, withExecutive: lines.slice(1).filter((line) => line.slice(62, 72) !== '0000000000').length });
    });

    it('renders the same period again to the same bytes, whatever was recorded since', async () => {
      const first = await renderedReport({ kind: 'rdc30', ...period });
      await redecConsents(api, key).grant();
      const again = await renderedReport({ kind: 'rdc30', ...period });
      expect(again.reportId).not.toBe(first.reportId);
      expect(again.contentSha256).toBe(first.contentSha256);
      expect((await content(again.reportId)).body.equals((await content(first.reportId)).body)).toBe(true);
    });

    it('renders RDC31 with the mandatary of an access and its cover-sheet counts', async () => {
      const report = await renderedReport({ kind: 'rdc31', ...period });
      expect(report).toMatchObject({ status: 'ready', records: 1, metadata: { totalRecords: 1, byMandatary: 1 } });
      const [header, line] = ((await content(report.reportId)).body as Buffer).toString('ascii').split('\r\n');
      expect(header.slice(0, 15)).toBe('0000000077RDC31');
      expect(line.slice(0, 20)).toBe(digital.internalConsentCode);
      expect(line.slice(34)).toBe('0123456785');
    });

    it('records the request as a fact naming who asked, and keeps the content encrypted at rest', async () => {
      const report = await renderedReport({ kind: 'rdc30', ...period });
      const facts = await api.store.readStream(redecStreams.report(tenantId, report.reportId));
      expect(facts.map((e) => e.type)).toEqual(['ReportRequested', 'ReportRendered']);
      expect(facts[0].metadata.actor).toMatch(/^[\w-]+$/);
      expect(facts[0].data).toMatchObject({ kind: 'rdc30', ...period, layoutVersion: 'rdc30-2026.1', asOfPosition: expect.any(Number) });
      const plaintext = (await content(report.reportId)).body as Buffer;
      const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
      const stored = files(join(environment.dataDir, 'blobs')).map((path) => readFileSync(path));
      expect(stored.length).toBeGreaterThan(0);
      for (const bytes of stored) expect(bytes.includes(plaintext.subarray(0, 24))).toBe(false);
    });

    it('refuses a period not ended, a request without Idempotency-Key, a tenant without institution code and keys without consent:report, recording nothing', async () => {
      const unconfigured = await api.tenantKey(['consent:report']);
      await recordsNoFact(api, async () => {
        expectValidationError(
          await api.http.post('/v1/redec/reports').set({ ...auth(), 'Idempotency-Key': randomUUID() }).send({ kind: 'rdc30', periodStart: Date.now() - DAY, periodEnd: Date.now() + DAY }),
          [{ field: 'periodEnd', reason: 'period_not_ended' }],
        );
        expectProblem(await api.http.post('/v1/redec/reports').set(auth()).send({ kind: 'rdc30', ...period }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
        expectProblem(await api.http.post('/v1/redec/reports').set({ ...auth(reader), 'Idempotency-Key': randomUUID() }).send({ kind: 'rdc30', ...period }), 403, 'INSUFFICIENT_SCOPE');
        expectProblem(await api.http.post('/v1/redec/reports').set({ ...auth(), 'Idempotency-Key': randomUUID() }).send({ kind: 'rdc32', ...period }), 400, 'VALIDATION_ERROR');
      });
      expectProblem(
        await api.http.post('/v1/redec/reports').set({ ...auth(unconfigured.apiKey), 'Idempotency-Key': randomUUID() }).send({ kind: 'rdc30', ...period }),
        409,
        'institution_code_not_configured',
      );
    });

    it('lets consent:read see a report but not its content, and answers 404 for another tenant', async () => {
      const report = await renderedReport({ kind: 'rdc31', ...period });
      const { apiKey: sameTenantReader } = await issueApiKey(api.store, { tenantId, scopes: ['consent:read'] }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
      expect((await api.http.get(`/v1/redec/reports/${report.reportId}`).set(auth(sameTenantReader))).body).toEqual(report);
      expectProblem(await api.http.get(`/v1/redec/reports/${report.reportId}/content`).set(auth(sameTenantReader)), 403, 'INSUFFICIENT_SCOPE');
      const otherTenant = (await api.tenantKey(['consent:report'])).apiKey;
      expectProblem(await api.http.get(`/v1/redec/reports/${report.reportId}`).set(auth(otherTenant)), 404, 'NOT_FOUND');
      expectProblem(await api.http.get(`/v1/redec/reports/${report.reportId}/content`).set(auth(otherTenant)), 404, 'NOT_FOUND');
    });
  });

  describe('exports for auditors', () => {
    let auditor: { tenantId: string; apiKey: string };
    let granted: Array<{ redecConsentId: string }>;
    const page = (query: Record<string, string | number>, apiKey = auditor.apiKey) => api.http.get('/v1/redec/consent-exports').query(query).set(auth(apiKey));

    beforeAll(async () => {
      auditor = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'], { presentation: false });
      const consents = redecConsents(api, auditor.apiKey);
      granted = [];
      for (let i = 0; i < 5; i += 1) granted.push(await consents.grant());
      // Each certificate stored is a change of its consent: let them all land before the order is read.
      await waitUntil(
        async () => ((await page({ limit: 200 })).body.items as Array<{ artifactStatus: string }>).every((c) => c.artifactStatus === 'ready'),
        60_000,
      );
    });

    it('GET /v1/redec/consent-exports lists every consent of the tenant in the regulatory representation, by updatedAt, in pages with an opaque cursor', async () => {
      const seen: any[] = [];
      const pages: any[] = [];
      let cursor: string | null = null;
      do {
        const response: any = await page({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(['items', 'nextCursor']);
        pages.push(response.body);
        seen.push(...response.body.items);
        cursor = response.body.nextCursor;
      } while (cursor !== null);
      expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
      expect(pages.map((p) => p.nextCursor)).toEqual([expect.any(String), expect.any(String), null]);
      expect(seen.map((c) => c.redecConsentId).sort()).toEqual(granted.map((c) => c.redecConsentId).sort());
      expect(seen.map((c) => c.updatedAt)).toEqual([...seen.map((c) => c.updatedAt)].sort((a, b) => a - b));
      expect(seen[0]).toMatchObject({ internalConsentCode: expect.any(String), status: 'granted', customerId: expect.any(String), retentionUntil: null, updatedAt: expect.any(Number) });
      // The default page holds all five: 50 a page unless limit says otherwise.
      expect((await page({})).body).toEqual({ items: seen, nextCursor: null });
    });

    it("never shows another tenant's consents, and needs consent:read", async () => {
      const neighbour = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
      const theirs = await redecConsents(api, neighbour.apiKey).grant();
      const ids = (response: any) => response.body.items.map((c: { redecConsentId: string }) => c.redecConsentId);
      expect(ids(await page({ limit: 200 }, neighbour.apiKey))).toEqual([theirs.redecConsentId]);
      expect(ids(await page({ limit: 200 })).sort()).toEqual(granted.map((c) => c.redecConsentId).sort());
      expect((await page({}, (await api.tenantKey(['consent:read'])).apiKey)).body).toEqual({ items: [], nextCursor: null });

      const { apiKey: writer } = await issueApiKey(api.store, { tenantId: auditor.tenantId, scopes: ['consent:write', 'consent:report'] }, { actor: 'cli:test', correlationId: 'test', now: Date.now() });
      expectProblem(await page({}, writer), 403, 'INSUFFICIENT_SCOPE');
    });

    it('starts after updatedAfter, and shows a consent again once it changed', async () => {
      const all = (await page({ limit: 200 })).body.items as any[];
      const after = (await page({ updatedAfter: all[2].updatedAt })).body.items as any[];
      expect(after.map((c) => c.redecConsentId)).toEqual(all.filter((c) => c.updatedAt > all[2].updatedAt).map((c) => c.redecConsentId));
      const last = all[all.length - 1].updatedAt;
      const revoked = await api.http
        .post(`/v1/redec/consents/${all[0].redecConsentId}/revoke`)
        .set({ ...auth(auditor.apiKey), 'Idempotency-Key': randomUUID() })
        .send({ channel: 'digital', occurredAt: Date.now() - 1_000, sourceType: 'direct', identityAssurance: 'client_authenticated' });
      expect(revoked.status).toBe(201);
      expect((await page({ updatedAfter: last })).body.items).toEqual([expect.objectContaining({ redecConsentId: all[0].redecConsentId, status: 'revoked' })]);
    });

    it("refuses a cursor it did not hand out, updatedAfter with a cursor, a page out of bounds, and the lookup's parameters", async () => {
      const { nextCursor } = (await page({ limit: 1 })).body;
      expectValidationError(await page({ cursor: 'bm90LWEtY3Vyc29y' }), [{ field: 'cursor', reason: 'invalid_cursor' }], 'invalid_cursor');
      expectValidationError(await page({ cursor: nextCursor, updatedAfter: 1 }), [{ field: 'updatedAfter', reason: 'not_with_cursor' }], 'not_with_cursor');
      expectValidationError(await page({ limit: 201 }), [{ field: 'limit', reason: 'too_large' }]);
      expectValidationError(await page({ updatedAfter: 'yesterday' }), [{ field: 'updatedAfter', reason: 'invalid_format' }]);
      // A lookup is GET /v1/redec/consents; the export filters nothing.
      expectValidationError(await page({ internalConsentCode: 'A'.repeat(20) }), [{ field: 'internalConsentCode', reason: 'unknown_property' }]);
      expect((await page({ limit: 1 })).body.items[0].redecConsentId).toBeDefined();
    });

    it('ledger export consents streams the same as NDJSON, within --from and --to, with progress on stderr; ledger tenant configure changes only the settings it names', async () => {
      const all = (await page({ limit: 200 })).body.items as any[];
      const exported = await runCli(['export', 'consents', '--tenant', auditor.tenantId], environment.env);
      expect({ status: exported.status, stderr: exported.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/exported 5 consents/) });
      const lines = exported.stdout.split('\n');
      expect(lines.pop()).toBe('');
      // The same items in the same order; status and retention are derived as of each reader's clock.
      expect(lines.map((line) => JSON.parse(line)).map(({ status, retentionUntil, ...rest }) => rest)).toEqual(all.map(({ status, retentionUntil, ...rest }) => rest));
      const window = await runCli(['export', 'consents', '--tenant', auditor.tenantId, '--from', String(all[1].updatedAt), '--to', String(all[3].updatedAt)], environment.env);
      expect(window.stdout.trim().split('\n').map((line) => JSON.parse(line).redecConsentId)).toEqual(all.slice(1, 4).map((c) => c.redecConsentId));

      const configured = await runCli(['tenant', 'configure', '--tenant', auditor.tenantId, '--institution-code', '0000000555'], environment.env);
      expect({ status: configured.status, json: configured.json }).toEqual({ status: 0, json: { tenantId: auditor.tenantId, institutionCode: '0000000555', weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null } });
      expect((await api.http.get('/v1/tenant-settings').set(auth(auditor.apiKey))).body).toMatchObject({ institutionCode: '0000000555' });
      const weekly = await runCli(['tenant', 'configure', '--tenant', auditor.tenantId, '--weekly-reports', 'on'], environment.env);
      expect(weekly.json).toEqual({ tenantId: auditor.tenantId, institutionCode: '0000000555', weeklyReports: true, dailyRightsReport: false, scheduledErasure: false, presentation: null });
      const refused = await runCli(['tenant', 'configure', '--tenant', auditor.tenantId, '--institution-code', '555'], environment.env);
      expect(refused.status).not.toBe(0);
      expect(refused.json).toEqual({ error: expect.objectContaining({ code: 'VALIDATION_ERROR' }) });
    });
  });

  describe('while a report is pending', () => {
    it('answers its content 409 report_not_ready with Retry-After (no worker runs here)', async () => {
      const idle = testEnvironment();
      const service = await startApiApp(idle, { LEDGER_WORKERS: 'external' });
      try {
        const { apiKey } = await service.tenantKey(['consent:admin', 'consent:report']);
        await service.http.put('/v1/tenant-settings').set(auth(apiKey)).send({ institutionCode: '0000000001' });
        const requested = await service.http
          .post('/v1/redec/reports')
          .set({ ...auth(apiKey), 'Idempotency-Key': randomUUID() })
          .send({ kind: 'rdc31', periodStart: Date.now() - DAY, periodEnd: Date.now() - 1 });
        expect((await service.http.get(`/v1/redec/reports/${requested.body.reportId}`).set(auth(apiKey))).body).toMatchObject({ status: 'pending', contentSha256: null, records: null });
        const pending = await service.http.get(`/v1/redec/reports/${requested.body.reportId}/content`).set(auth(apiKey));
        expectProblem(pending, 409, 'report_not_ready');
        expect(pending.headers['retry-after']).toBe('2');
      } finally {
        await service.close();
        await idle.dispose();
      }
    });
  });
});
