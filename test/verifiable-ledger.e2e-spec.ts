import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TIME_ORDERED_ID, instantOfTimeOrderedId } from '@ledger/platform/testing';
import { ed25519Signer, parseProofFile, tilePath, tilesForSize } from '@ledger/transparency';
import { buildGoProgram } from '../libs/transparency/test/go';
import { ApiApp, startApiApp } from './support/api-app';
import { binaryBody, textBody } from './support/text-body';
import { TestEnvironment, testEnvironment } from './support/environment';
import { runCli } from './support/processes';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// The verifiable ledger over HTTP (decision 0058), checked by an
// implementation nobody here wrote (Go's sumdb note and tlog): the
// checkpoint, a consent's audit bundle, an inclusion proof file, a
// consistency proof, and the tree read from hash tiles; and the bundle
// checked offline by `ledger audit verify-bundle`.
describe('the verifiable ledger over HTTP', () => {
  const SLOW = 120_000;
  const MINUTE = 60_000;
  const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:audit'] as const;

  let environment: TestEnvironment;
  let api: ApiApp;
  let go: string;
  let a: { tenantId: string; apiKey: string };
  let b: { tenantId: string; apiKey: string };
  let noAudit: { apiKey: string };
  let revoked: GrantedConsent;
  let dir: string;

  const get = (path: string, key = a.apiKey) => api.http.get(path).set('Authorization', `Bearer ${key}`).buffer(true);
  const text = async (path: string, key = a.apiKey) => {
    const response = await get(path, key).parse(textBody);
    return { status: response.status, body: response.body as string, type: response.headers['content-type'] as string };
  };
  const binary = async (path: string) => {
    const response = await get(path).parse(binaryBody);
    return { status: response.status, body: response.body as Buffer };
  };
  const goVerify = (input: unknown) => {
    try {
      return { ok: true, out: execFileSync(go, { input: JSON.stringify(input) }).toString() };
    } catch (error) {
      return { ok: false, out: String((error as { stderr?: Buffer }).stderr ?? error) };
    }
  };

  beforeAll(async () => {
    go = buildGoProgram('go-verifier');
    dir = mkdtempSync(join(tmpdir(), 'ledger-bundles-'));
    environment = testEnvironment();
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    a = await api.tenantKey([...SCOPES]);
    b = await api.tenantKey([...SCOPES]);
    noAudit = await api.tenantKey(['consent:read']);
    const consents = redecConsents(api, a.apiKey);
    revoked = await consents.grant({ occurredAt: Date.now() - 2 * MINUTE });
    await redecConsents(api, b.apiKey).grant();
    expect((await consents.revoke(revoked)).status).toBe(201);
  }, SLOW);
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it("serves the latest checkpoint signed by the log's key, which Go opens, and the consent's bundle, every proof of which Go accepts", async () => {
    const vkey = await text('/v1/ledger/verifier-key');
    expect(vkey).toMatchObject({ status: 200, type: expect.stringContaining('text/plain') });
    expect(vkey.body).toMatch(/^ledger\.test\/consent-ledger\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*\n$/);
    const bundle = await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.verifierKey).toBe(vkey.body.trim());
    expect(bundle.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['ConsentGranted', 'RevocationRecorded']));
    const records = bundle.body.events.map((e: { leafIndex: number; leaf: string; inclusionProof: string[] }) => ({ index: e.leafIndex, leaf: e.leaf, proof: e.inclusionProof }));
    const answer = goVerify({ vkey: vkey.body.trim(), checkpoint: bundle.body.checkpoint, records });
    expect(answer).toEqual({ ok: true, out: expect.stringMatching(new RegExp(`^verified ${records.length} records in ledger.test/consent-ledger at size \\d+\\n$`)) });

    const checkpoint = await text('/v1/ledger/checkpoint');
    expect(checkpoint).toMatchObject({ status: 200, type: expect.stringContaining('text/plain') });
    expect(goVerify({ vkey: vkey.body.trim(), checkpoint: checkpoint.body, records: [] })).toMatchObject({ ok: true });
    // Another key of the same name: Go refuses the checkpoint.
    const stranger = ed25519Signer('ledger.test/consent-ledger', randomBytes(32));
    expect(goVerify({ vkey: stranger.verifierKey, checkpoint: checkpoint.body, records: [] })).toMatchObject({ ok: false, out: expect.stringContaining('checkpoint') });
  }, SLOW);

  it('proves a later checkpoint consistent with an earlier one, as Go checks it, and reads the tree from hash tiles with tlog', async () => {
    const vkey = (await text('/v1/ledger/verifier-key')).body.trim();
    const first = (await text('/v1/ledger/checkpoint')).body;
    const [, firstSize, firstRoot] = first.split('\n');
    // The tree grows; a bundle of the new consent needs a checkpoint that includes it, issued on demand.
    const later = await redecConsents(api, a.apiKey).grant();
    const bundle = await get(`/v1/redec/consents/${later.redecConsentId}/audit-bundle`);
    const [, laterSize] = bundle.body.checkpoint.split('\n');
    expect(Number(laterSize)).toBeGreaterThan(Number(firstSize));
    const consistency = await get(`/v1/ledger/consistency?from=${firstSize}&to=${laterSize}`);
    expect(consistency.status).toBe(200);
    expect(consistency.body).toEqual({ size1: Number(firstSize), size2: Number(laterSize), proof: expect.any(Array) });
    expect(goVerify({ vkey, checkpoint: bundle.body.checkpoint, records: [], older: { size: Number(firstSize), root: firstRoot, proof: consistency.body.proof } })).toMatchObject({ ok: true });
    // The same proof does not make another root consistent.
    const otherRoot = Buffer.alloc(32, 7).toString('base64');
    expect(goVerify({ vkey, checkpoint: bundle.body.checkpoint, records: [], older: { size: Number(firstSize), root: otherRoot, proof: consistency.body.proof } })).toMatchObject({ ok: false });

    const size = Number(laterSize);
    const tiles: Record<string, string> = {};
    for (const { level, fullTiles, partialWidth } of tilesForSize(size)) {
      const widths = [...Array.from({ length: fullTiles }, () => 256), ...(partialWidth > 0 ? [partialWidth] : [])];
      for (const [index, width] of widths.entries()) {
        const path = tilePath({ level, index, width });
        const tile = await binary(`/v1/ledger/${path}`);
        expect(tile.status).toBe(200);
        expect(tile.body).toHaveLength(32 * width);
        tiles[path] = tile.body.toString('base64');
      }
    }
    const records = bundle.body.events.map((e: { leafIndex: number; leaf: string; inclusionProof: string[] }) => ({ index: e.leafIndex, leaf: e.leaf, proof: e.inclusionProof }));
    expect(goVerify({ vkey, checkpoint: bundle.body.checkpoint, records, tiles })).toMatchObject({ ok: true });
    // A tile the tree does not have: a wider partial one, a full one beyond it, a path not in canonical form.
    const [{ partialWidth }] = tilesForSize(size);
    expect((await binary(`/v1/ledger/tile/0/${String(Math.floor(size / 256)).padStart(3, '0')}.p/${partialWidth + 1}`)).status).toBe(404);
    expect((await binary('/v1/ledger/tile/0/x999/000')).status).toBe(404);
    expect((await binary('/v1/ledger/tile/0/1')).status).toBe(404);
  }, SLOW);

  it('records each fact under an id that begins with the instant it was recorded: a version 7 UUID (decision 0082)', async () => {
    const bundle = await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`);
    const bundled = bundle.body.events as Array<{ type: string; eventId: string; recordedAt: number }>;
    expect(bundled.map((e) => e.type)).toEqual(expect.arrayContaining(['ConsentGranted', 'RevocationRecorded']));
    // Every fact of the ledger so far: tenants, keys, keyrings, configurations, interactions, grants, idempotency records.
    const recorded = await api.store.readAll();
    const ids = [...bundled.map((e) => ({ type: e.type, id: e.eventId, recordedAt: e.recordedAt })), ...recorded.map((e) => ({ type: e.type, id: e.id, recordedAt: e.metadata.recordedAt }))];
    const notTimeOrdered = ids.filter(({ id, recordedAt }) => !TIME_ORDERED_ID.test(id) || instantOfTimeOrderedId(id) !== recordedAt);
    expect(notTimeOrdered).toEqual([]);
  });

  it("serves an inclusion proof file of the tenant's own event only, which Go accepts", async () => {
    const vkey = (await text('/v1/ledger/verifier-key')).body.trim();
    const bundle = await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`);
    const [granted] = bundle.body.events;
    const proofFile = await text(`/v1/ledger/events/${granted.eventId}/proof`);
    expect(proofFile).toMatchObject({ status: 200, type: expect.stringContaining('text/plain') });
    expect(proofFile.body.startsWith('c2sp.org/tlog-proof@v1\n')).toBe(true);
    const parsed = parseProofFile(proofFile.body);
    expect(parsed.index).toBe(granted.leafIndex);
    expect(parsed.leafExtra?.toString('base64')).toBe(granted.leaf);
    const record = { index: parsed.index, leaf: parsed.leafExtra!.toString('base64'), proof: parsed.proof.map((h) => h.toString('base64')) };
    expect(goVerify({ vkey, checkpoint: parsed.checkpointNote, records: [record] })).toMatchObject({ ok: true });
    // Tenant B's key: the event is not its tenant's, and it learns nothing more than of an id that does not exist.
    const [ofB, unknown] = await Promise.all([text(`/v1/ledger/events/${granted.eventId}/proof`, b.apiKey), text(`/v1/ledger/events/${randomUUID()}/proof`, b.apiKey)]);
    expect(ofB.status).toBe(404);
    expect(JSON.parse(ofB.body)).toEqual(JSON.parse(unknown.body));
    expect((await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`, b.apiKey)).status).toBe(404);
  }, SLOW);

  it('keeps every route to consent:audit, and refuses a consistency proof outside the checkpointed tree', async () => {
    const routes = ['/v1/ledger/checkpoint', '/v1/ledger/verifier-key', '/v1/ledger/tile/0/000.p/1', `/v1/ledger/events/${randomUUID()}/proof`, '/v1/ledger/consistency?from=1&to=1', `/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`];
    for (const route of routes) expect({ route, status: (await get(route, noAudit.apiKey)).status }).toEqual({ route, status: 403 });
    const size = Number((await text('/v1/ledger/checkpoint')).body.split('\n')[1]);
    for (const query of ['from=0&to=1', `from=2&to=1`, `from=1&to=${size + 1}`, 'from=x&to=1', 'to=1']) {
      const refused = await get(`/v1/ledger/consistency?${query}`);
      expect({ query, status: refused.status, type: refused.headers['content-type'] }).toEqual({ query, status: 400, type: expect.stringContaining('application/problem+json') });
    }
    expect((await get(`/v1/ledger/consistency?from=${size}&to=${size}`)).body).toEqual({ size1: size, size2: size, proof: [] });
  }, SLOW);

  it('has `ledger audit verify-bundle` accept the bundle offline and refuse it with any fact, leaf or proof changed, or a witness that did not cosign', async () => {
    const bundle = (await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`)).body;
    const vkey = bundle.verifierKey as string;
    const check = (content: unknown, ...extra: string[]) => {
      const file = join(dir, `${randomUUID()}.json`);
      writeFileSync(file, JSON.stringify(content));
      // Offline: no data dir, database or Redis in its environment.
      return runCli(['audit', 'verify-bundle', '--file', file, '--vkey', vkey, ...extra], {});
    };
    const valid = await check(bundle);
    expect({ status: valid.status, json: valid.json }).toEqual({
      status: 0,
      json: { valid: true, redecConsentId: revoked.redecConsentId, events: bundle.events.length, checkpointSize: expect.any(Number), reason: null },
    });
    const edited = structuredClone(bundle);
    edited.events[0].data.channel = 'edited';
    const otherLeaf = structuredClone(bundle);
    otherLeaf.events[1].leaf = bundle.events[0].leaf;
    const otherProof = structuredClone(bundle);
    otherProof.events[0].inclusionProof[0] = Buffer.alloc(32).toString('base64');
    const dropped = structuredClone(bundle);
    dropped.events.splice(0, 1);
    for (const [what, tampered] of Object.entries({ edited, otherLeaf, otherProof, dropped })) {
      const refused = await check(tampered);
      expect({ what, status: refused.status, valid: refused.json?.valid, reason: refused.json?.reason }).toEqual({ what, status: 1, valid: false, reason: expect.any(String) });
    }
    const witness = await runCli(['witness', 'key', '--key-file', join(dir, 'witness.key')], {});
    const unwitnessed = await check(bundle, '--witness-vkey', witness.json.verifierKey);
    expect({ status: unwitnessed.status, reason: unwitnessed.json.reason }).toEqual({ status: 1, reason: expect.stringContaining('no cosignature') });
  }, SLOW);

  it("checks a bundle with docs/auditing.md's recipe for Go's sumdb, as written there", async () => {
    const recipe = /cat > main\.go <<'GO'\n([\s\S]*?)\nGO\n/.exec(readFileSync(join(__dirname, '..', 'docs', 'auditing.md'), 'utf8'));
    expect(recipe).not.toBeNull();
    const program = mkdtempSync(join(tmpdir(), 'ledger-recipe-'));
    writeFileSync(join(program, 'main.go'), `${recipe![1]}\n`);
    const bundle = await get(`/v1/redec/consents/${revoked.redecConsentId}/audit-bundle`);
    const file = join(program, 'bundle.json');
    writeFileSync(file, JSON.stringify(bundle.body));
    const goEnv = { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(tmpdir(), 'ledger-go-cache') };
    const out = execFileSync('go', ['run', 'main.go', file, bundle.body.verifierKey], { cwd: program, env: goEnv }).toString();
    expect(out).toBe(`${bundle.body.events.length} facts included in ledger.test/consent-ledger at size ${bundle.body.checkpoint.split('\n')[1]}\n`);
    // A proof changed: the recipe refuses the bundle (exits non-zero).
    const changed = structuredClone(bundle.body);
    changed.events[0].inclusionProof[0] = Buffer.alloc(32).toString('base64');
    writeFileSync(file, JSON.stringify(changed));
    expect(() => execFileSync('go', ['run', 'main.go', file, bundle.body.verifierKey], { cwd: program, env: goEnv, stdio: 'pipe' })).toThrow();
  }, SLOW);
});
