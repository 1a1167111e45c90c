import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import request from 'supertest';
import { binaryBody } from './support/text-body';
import { blobAddress } from '@ledger/artifacts';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, runCli, spawnApi } from './support/processes';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// Issue 13, item 6 and decision 0028: what the service and the CLI leave on
// disk. Modes are read with stat from the files they created; evidence is
// read back from the disk and through the download.

const SLOW = 180_000;
const MINUTE = 60_000;
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;
let nextRutBody = 20_000_000;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and directory under `root`, recursively. */
function entriesUnder(root: string): { files: string[]; directories: string[] } {
  const files: string[] = [];
  const directories: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) {
      directories.push(path);
      const nested = entriesUnder(path);
      files.push(...nested.files);
      directories.push(...nested.directories);
    } else {
      files.push(path);
    }
  }
  return { files, directories };
}

/** An integrator's calls, for an in-process app or a service process alike. */
function integrator(http: ReturnType<typeof request>, apiKey: string) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  const configurations = new Map<string, Promise<string>>();

  async function publish(channel: 'digital' | 'phone'): Promise<string> {
    const published = await http.post('/v1/configurations').set(auth).send(redecConfiguration({ templateKey: `redec-${channel}-${randomUUID()}`, channel }));
    expect(published.status).toBe(201);
    return published.body.configurationId;
  }

  return {
    auth,
    /** A consent granted for a new verified customer: electronic (the service renders a certificate) or with a supplied recording. */
    async grant(evidence: { recording: Buffer } | 'electronic'): Promise<string> {
      const channel = evidence === 'electronic' ? 'digital' : 'phone';
      if (!configurations.has(channel)) configurations.set(channel, publish(channel));
      const occurredAt = Date.now() - MINUTE;
      const verification = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: occurredAt - MINUTE };
      const interaction = await http
        .post('/v1/redec/consent-interactions')
        .set(auth)
        .send({
          configurationId: await configurations.get(channel),
          userReference: `cliente-${randomUUID()}`,
          identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)), verification }],
        });
      expect(interaction.status).toBe(201);
      const granted = await http
        .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
        .set(auth)
        .send({
          occurredAt,
          sourceSystem: 'crm',
          sourceReference: `cap-${randomUUID()}`,
          evidence:
            evidence === 'electronic'
              ? { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } }
              : { kind: 'audio_recording', recordedAt: occurredAt + 30_000, mediaType: 'audio/mpeg', contentBase64: evidence.recording.toString('base64') },
        });
      expect(granted.status).toBe(201);
      return granted.body.redecConsentId;
    },
    /** The artifact's metadata once it is ready (a certificate is rendered by a job). */
    async readyArtifact(redecConsentId: string): Promise<{ contentSha256: string }> {
      let metadata: { status?: string; contentSha256: string } = { contentSha256: '' };
      await waitUntil(async () => {
        metadata = (await http.get(`/v1/redec/consents/${redecConsentId}/artifact`).set(auth)).body;
        return metadata.status === 'ready';
      }, 30_000, 100);
      return metadata;
    },
    /** The data subject of a consent, whose blobs are its own (decision 0048). */
    async customerOf(redecConsentId: string): Promise<string> {
      return (await http.get(`/v1/redec/consents/${redecConsentId}`).set(auth)).body.customerId;
    },
    async download(redecConsentId: string): Promise<Buffer> {
      const response = await http.get(`/v1/redec/consents/${redecConsentId}/artifact/download`).set(auth).buffer(true).parse(binaryBody);
      expect(response.status).toBe(200);
      return response.body as Buffer;
    },
  };
}

/** A recording with a recognisable text inside, so that the test can look for it on disk. */
const recordingOf = (marker: string) => Buffer.concat([Buffer.from(`ID3 ${marker} `), randomBytes(2048), Buffer.from(` ${marker}`)]);

// Files and modes of the embedded store (EMBEDDED_STORE even in a run on PostgreSQL); blobs kept in
// PostgreSQL are sealed the same way, see libs/artifacts/src/blobs/postgres-blob-store.spec.ts.
describe('data at rest (decision 0028)', () => {
  describe('files created by the service and the CLI, under a umask that restricts nothing', () => {
    let environment: TestEnvironment;
    let previousUmask: number;
    const processes: ApiProcess[] = [];
    /** Without LEDGER_MASTER_KEY, so that the key is generated into the data directory. */
    const freshEnv = (name: string) => ({ ...environment.env, LEDGER_DATA_DIR: join(environment.dataDir, name), LEDGER_MASTER_KEY: '' });

    beforeAll(() => {
      environment = testEnvironment(EMBEDDED_STORE);
      // Inherited by the processes started here: any file created with a default mode would be world-readable.
      previousUmask = process.umask(0);
    });
    afterAll(async () => {
      process.umask(previousUmask);
      for (const api of processes) {
        if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
        await api.exited;
      }
      await environment.dispose();
    });

    it(
      'the service makes the data dir 0700, the ledger, its WAL and SHM and the master key 0600, and blobs 0400 in 0700 directories',
      async () => {
        const env = freshEnv('service-data');
        const dataDir = env.LEDGER_DATA_DIR;
        const api = await spawnApi(env);
        processes.push(api);
        const tenant = await runCli(['tenant', 'create', '--name', 'Banco de los Permisos'], env);
        const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', SCOPES.join(',')], env);
        expect([tenant.status, key.status]).toEqual([0, 0]);
        const bank = integrator(request(api.baseUrl), key.json.apiKey);
        await bank.grant({ recording: recordingOf('permisos') });
        await bank.readyArtifact(await bank.grant('electronic'));

        expect(modeOf(dataDir)).toBe(0o700);
        // The WAL and SHM files exist while the service holds the ledger open.
        for (const file of ['ledger.sqlite', 'ledger.sqlite-wal', 'ledger.sqlite-shm', 'master.key']) {
          expect({ file, mode: modeOf(join(dataDir, file)).toString(8) }).toEqual({ file, mode: '600' });
        }
        const blobs = entriesUnder(join(dataDir, 'blobs'));
        expect(blobs.files.filter((file) => /^[0-9a-f]{64}$/.test(basename(file)))).toHaveLength(2);
        for (const file of blobs.files) expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '400' });
        for (const directory of [join(dataDir, 'blobs'), ...blobs.directories]) expect({ directory, mode: modeOf(directory).toString(8) }).toEqual({ directory, mode: '700' });
      },
      SLOW,
    );

    it(
      'the CLI run first against a fresh data dir creates it 0700 with the ledger and master key 0600',
      async () => {
        const env = freshEnv('cli-data');
        const dataDir = env.LEDGER_DATA_DIR;
        const created = await runCli(['tenant', 'create', '--name', 'Banco de la Consola'], env);
        expect(created.status).toBe(0);

        expect(modeOf(dataDir)).toBe(0o700);
        const { files } = entriesUnder(dataDir);
        expect(files.map((file) => basename(file)).sort()).toEqual(expect.arrayContaining(['ledger.sqlite', 'master.key']));
        for (const file of files) expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '600' });
      },
      SLOW,
    );
  });

  describe('evidence blobs', () => {
    let environment: TestEnvironment;
    let api: ApiApp;

    beforeAll(async () => {
      environment = testEnvironment(EMBEDDED_STORE);
      api = await startApiApp(environment);
    });
    afterAll(async () => {
      await api.close();
      await environment.dispose();
    });

    /** The files the blob store holds for this content of this customer, in any tenant. */
    const blobFiles = (contentSha256: string, customerId: string) =>
      entriesUnder(join(environment.dataDir, 'blobs')).files.filter((file) => basename(file) === blobAddress(contentSha256, customerId));

    it('keeps a supplied recording encrypted on disk, and the download returns exactly the recording', async () => {
      const bank = integrator(api.http, (await api.tenantKey([...SCOPES])).apiKey);
      const recording = recordingOf('grabación de la llamada');
      const redecConsentId = await bank.grant({ recording });
      const { contentSha256 } = await bank.readyArtifact(redecConsentId);
      expect(contentSha256).toBe(sha256(recording));

      const [file] = blobFiles(contentSha256, await bank.customerOf(redecConsentId));
      const onDisk = readFileSync(file);
      expect(onDisk.equals(recording)).toBe(false);
      expect(onDisk.includes(Buffer.from('grabación de la llamada'))).toBe(false);
      expect(onDisk.includes(recording.subarray(40, 72))).toBe(false);

      const downloaded = await bank.download(redecConsentId);
      expect(downloaded.equals(recording)).toBe(true);
      expect(sha256(downloaded)).toBe(contentSha256);
    });

    it('keeps the rendered certificate encrypted on disk, and the download is the PDF its hash names', async () => {
      const bank = integrator(api.http, (await api.tenantKey([...SCOPES])).apiKey);
      const redecConsentId = await bank.grant('electronic');
      const { contentSha256 } = await bank.readyArtifact(redecConsentId);

      const [file] = blobFiles(contentSha256, await bank.customerOf(redecConsentId));
      const onDisk = readFileSync(file);
      expect(onDisk.includes(Buffer.from('%PDF'))).toBe(false);
      expect(onDisk.includes(Buffer.from('Registro de Deuda Consolidada'))).toBe(false);

      const downloaded = await bank.download(redecConsentId);
      expect(downloaded.subarray(0, 5).toString('ascii')).toBe('%PDF-');
      expect(sha256(downloaded)).toBe(contentSha256);
    });

    it("stores the same bytes once per customer, sealed under each customer's own key, in one tenant or two (decision 0048)", async () => {
      const first = integrator(api.http, (await api.tenantKey([...SCOPES])).apiKey);
      const second = integrator(api.http, (await api.tenantKey([...SCOPES])).apiKey);
      const recording = recordingOf('la misma grabación');

      // Each grant is a new customer's: two in the first tenant, one in the second.
      const consents = [await first.grant({ recording }), await first.grant({ recording }), await second.grant({ recording })];
      const customers = await Promise.all(consents.map((id, index) => (index < 2 ? first : second).customerOf(id)));
      const files = customers.flatMap((customerId) => blobFiles(sha256(recording), customerId));
      expect(files).toHaveLength(3);
      expect(new Set(files.map((file) => readFileSync(file).toString('hex'))).size).toBe(3);
      const downloads = await Promise.all(consents.map((id, index) => (index < 2 ? first : second).download(id)));
      for (const downloaded of downloads) expect(downloaded.equals(recording)).toBe(true);
    });
  });

  describe('a weak master key in production', () => {
    let environment: TestEnvironment;
    const processes: ApiProcess[] = [];

    beforeAll(() => {
      environment = testEnvironment(EMBEDDED_STORE);
    });
    afterAll(async () => {
      for (const api of processes) {
        if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
        await api.exited;
      }
      await environment.dispose();
    });

    const refusal = (why: string) => `LEDGER_MASTER_KEY is refused when NODE_ENV=production: ${why}`;
    const production = (masterKey: string) => ({ ...environment.env, NODE_ENV: 'production', LEDGER_MASTER_KEY: masterKey });

    it(
      'the service refuses to start with an all-zero master key: it exits with a ConfigError that does not show the key, creating no ledger',
      async () => {
        const masterKey = '00'.repeat(32);
        const started = await spawnApi(production(masterKey)).then(
          (api) => {
            processes.push(api);
            return new Error('the service started');
          },
          (error: Error) => error,
        );
        expect(started.message).toContain(`ConfigError: ${refusal('too few distinct bytes (1; a random key has about 30)')}`);
        expect(started.message).not.toContain(masterKey);
        expect(existsSync(join(environment.dataDir, 'ledger.sqlite'))).toBe(false);
      },
      SLOW,
    );

    it.each([
      ['all zeros', '00'.repeat(32), 'too few distinct bytes (1; a random key has about 30)'],
      ['a repeated pattern', 'deadbeef'.repeat(8), 'too few distinct bytes (4; a random key has about 30)'],
      ['a typed phrase', Buffer.from('correct horse battery staple 123').toString('base64'), 'it is printable text, not random bytes'],
    ])(
      'the CLI refuses %s, creating no ledger',
      async (_, masterKey, why) => {
        const cli = await runCli(['tenant', 'create', '--name', 'Banco Débil'], production(masterKey));
        expect(cli.status).toBe(1);
        expect(cli.json.error.message).toContain(refusal(why));
        expect(existsSync(join(environment.dataDir, 'ledger.sqlite'))).toBe(false);
      },
      SLOW,
    );
  });
});
