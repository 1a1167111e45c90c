import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Response } from 'superagent';
import { Webhook } from 'standardwebhooks';
import { createEventStore } from '@ledger/event-store';
import { loadConfig } from '@ledger/platform';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, runCli, spawnApi } from './support/processes';
import { redecConfiguration, rutOf } from './support/redec-fixtures';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 13, item 6 and decision 0028: a master key rotation as an operator
// runs it, with the service as its own process and the CLI beside it. Before
// the rotation the service records a customer (keyed hashes), a recording
// (a blob envelope) and a webhook endpoint (its secret encrypted, its answer
// kept encrypted for Idempotency-Key replays). After `ledger keys rotate` and
// a restart with the new master key alone, each of those is read back.

const SLOW = 300_000;
const MINUTE = 60_000;
const SCOPES = 'consent:admin,consent:write,consent:read,consent:identity-assert';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** A master key's id as decision 0028 defines it, computed here rather than with the library under test. */
const masterKeyIdOf = (hex: string) => `mk_${createHmac('sha256', Buffer.from(hex, 'hex')).update('consent-ledger/master-key-id').digest('hex').slice(0, 16)}`;
const binary = (res: Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('master key rotation through `ledger keys rotate` (decision 0028)', () => {
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');
  const oldKeyId = masterKeyIdOf(oldKey);
  const newKeyId = masterKeyIdOf(newKey);
  let environment: TestEnvironment;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const processes: ApiProcess[] = [];
  /** The service's environment with these master keys. */
  const withKeys = (current: string, previous?: string) => ({
    ...environment.env,
    LEDGER_MASTER_KEY: current,
    ...(previous ? { LEDGER_PREVIOUS_MASTER_KEYS: previous } : {}),
  });

  async function start(env: Record<string, string>) {
    const api = await spawnApi(env);
    processes.push(api);
    return { api, http: request(api.baseUrl) };
  }
  async function stop(api: ApiProcess): Promise<void> {
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
  }
  async function keyringFacts(): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const store = createEventStore(loadConfig(withKeys(newKey), () => undefined));
    try {
      return (await store.readStream('keyring')).map(({ type, data }) => ({ type, data: data as Record<string, unknown> }));
    } finally {
      await store.close();
    }
  }

  // What the integrator did before the rotation, and what it must find after.
  let auth: { Authorization: string };
  const customer = {
    userReference: 'cliente-rotacion',
    identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(15_432_198), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
  };
  const endpointIdempotencyKey = randomUUID();
  let customerId: string;
  let endpoint: { endpointId: string; secret: string };
  let phoneConfigurationId: string;
  const oldRecording = Buffer.concat([Buffer.from('ID3 grabación anterior '), randomBytes(1024)]);
  let oldConsentId: string;

  async function grantRecording(http: ReturnType<typeof request>, recording: Buffer): Promise<string> {
    const interaction = await http.post('/v1/redec/consent-interactions').set(auth).send({ configurationId: phoneConfigurationId, customerId });
    expect(interaction.status).toBe(201);
    const occurredAt = Date.now() - MINUTE;
    const granted = await http
      .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
      .set(auth)
      .send({
        occurredAt,
        sourceSystem: 'contact-center',
        sourceReference: `cap-${randomUUID()}`,
        evidence: { kind: 'audio_recording', recordedAt: occurredAt + 30_000, mediaType: 'audio/mpeg', contentBase64: recording.toString('base64') },
      });
    expect(granted.status).toBe(201);
    return granted.body.redecConsentId;
  }
  const registerEndpoint = (http: ReturnType<typeof request>) =>
    http.post('/v1/webhook-endpoints').set(auth).set('Idempotency-Key', endpointIdempotencyKey).send({ url: receiver.url, eventTypes: ['redec.notification.required'] });
  const download = (http: ReturnType<typeof request>, redecConsentId: string) =>
    http.get(`/v1/redec/consents/${redecConsentId}/artifact/download`).set(auth).buffer(true).parse(binary);
  /** The deliveries about one consent, each checked against the endpoint's secret as the integrator checks them. */
  const verifiedDeliveriesAbout = (redecConsentId: string) =>
    receiver.received
      .filter((delivery) => JSON.parse(delivery.body).data.redec_consent_id === redecConsentId)
      .map((delivery) => new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>));

  beforeAll(async () => {
    environment = testEnvironment();
    receiver = await startWebhookReceiver();
    const env = withKeys(oldKey);
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco de la Rotación'], env);
    const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', SCOPES], env);
    expect([tenant.status, key.status]).toEqual([0, 0]);
    auth = { Authorization: `Bearer ${key.json.apiKey}` };

    const { api, http } = await start(env);
    const registered = await registerEndpoint(http);
    expect(registered.status).toBe(201);
    endpoint = registered.body;
    const resolved = await http.post('/v1/customers/resolve').set(auth).send(customer);
    expect(resolved.status).toBe(201);
    customerId = resolved.body.customerId;
    const published = await http.post('/v1/configurations').set(auth).send(redecConfiguration({ templateKey: 'redec-phone', channel: 'phone' }));
    expect(published.status).toBe(201);
    phoneConfigurationId = published.body.configurationId;
    oldConsentId = await grantRecording(http, oldRecording);
    await receiver.waitForCount(1);
    expect(verifiedDeliveriesAbout(oldConsentId)).toHaveLength(1);
    await stop(api);
  }, SLOW);
  afterAll(async () => {
    for (const api of processes) {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
      await api.exited;
    }
    await receiver?.close();
    await environment?.dispose();
  });

  it(
    're-wraps the tenant key under the new master key as a fact, and the service on the new key alone reads everything recorded under the old one',
    async () => {
      // The documented procedure: the service on the new key with the old one as previous, then the rotation, then the new key alone.
      const overlap = await start(withKeys(newKey, oldKey));
      const rotated = await runCli(['keys', 'rotate'], withKeys(newKey, oldKey));
      expect({ status: rotated.status, json: rotated.json, stderr: rotated.stderr }).toEqual({
        status: 0,
        json: { masterKeyId: newKeyId, previousMasterKeyIds: [oldKeyId], tenantKeys: 1, rewrapped: 1 },
        stderr: expect.any(String),
      });
      const facts = await keyringFacts();
      expect(facts.map((f) => [f.type, f.data.masterKeyId])).toEqual([
        ['TenantDataKeyCreated', oldKeyId],
        ['TenantDataKeyRewrapped', newKeyId],
      ]);
      expect(facts[1].data).toMatchObject({ dataKeyId: facts[0].data.dataKeyId, previousMasterKeyId: oldKeyId });
      await stop(overlap.api);

      const { http } = await start(withKeys(newKey));

      // Keyed hashes: the same customer is found, not created again.
      const resolvedAgain = await http.post('/v1/customers/resolve').set(auth).send(customer);
      expect(resolvedAgain.status).toBe(200);
      expect(resolvedAgain.body).toMatchObject({ customerId, created: false });

      // A blob sealed before the rotation: exactly the recording.
      const oldDownload = await download(http, oldConsentId);
      expect(oldDownload.status).toBe(200);
      expect((oldDownload.body as Buffer).equals(oldRecording)).toBe(true);

      // An answer stored encrypted before the rotation: the replay is the first answer, secret included.
      const replayed = await registerEndpoint(http);
      expect(replayed.status).toBe(201);
      expect(replayed.body).toEqual(endpoint);

      // A secret encrypted before the rotation signs a delivery made after it; a new blob is sealed and read back.
      const newRecording = Buffer.concat([Buffer.from('ID3 grabación nueva '), randomBytes(1024)]);
      const newConsentId = await grantRecording(http, newRecording);
      const newDownload = await download(http, newConsentId);
      expect(sha256(newDownload.body as Buffer)).toBe(sha256(newRecording));
      await receiver.waitForCount(2);
      expect(verifiedDeliveriesAbout(newConsentId)).toHaveLength(1);

      // The rotation is part of the chained record.
      const verified = await runCli(['audit', 'verify'], withKeys(newKey));
      expect(verified.status).toBe(0);
      expect(verified.json).toMatchObject({ intact: true, firstBreak: null });
    },
    SLOW,
  );

  it(
    'refuses to start under a master key that wrapped none of the keys, naming the one the ledger needs; a rotation without the old key records nothing',
    async () => {
      const stranger = randomBytes(32).toString('hex');
      const started = await spawnApi(withKeys(stranger)).then(
        (api) => {
          processes.push(api);
          return new Error('the service started');
        },
        (error: Error) => error,
      );
      expect(started.message).toMatch(new RegExp(`ConfigError: 1 tenant data key\\(s\\) are wrapped only under master key\\(s\\) ${oldKeyId}, ${newKeyId}`));
      expect(started.message).not.toContain(stranger);

      const before = await keyringFacts();
      const refused = await runCli(['keys', 'rotate'], withKeys(stranger));
      expect(refused.status).toBe(1);
      expect(refused.json.error.message).toContain('LEDGER_PREVIOUS_MASTER_KEYS');
      expect(await keyringFacts()).toEqual(before);
    },
    SLOW,
  );
});
