import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Response } from 'superagent';
import { documentText } from '@ledger/artifacts/testing';
import { QueueRuntime } from '@ledger/queues';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { TEST_PRESENTATION, redecConfiguration } from './support/redec-fixtures';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Collects a binary response body (supertest parses only text and JSON by default). */
const binary = (res: Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

async function publish(api: ApiApp, key: string, channel: 'digital' | 'phone' | 'in_person'): Promise<string> {
  const response = await api.http
    .post('/v1/configurations')
    .set('Authorization', `Bearer ${key}`)
    .send(redecConfiguration({ templateKey: `redec-${channel}`, channel, redec: { objectiveCodes: ['02'] } }));
  expect(response.status).toBe(201);
  return response.body.configurationId;
}

async function grant(api: ApiApp, key: string, configurationId: string, reference: string, evidence: object, occurredAt = Date.now() - 60_000) {
  const auth = { Authorization: `Bearer ${key}` };
  const verification = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 120_000 };
  const interaction = await api.http
    .post('/v1/redec/consent-interactions')
    .set(auth)
    .send({ configurationId, userReference: 'cliente-1', identifiers: [{ system: 'cl-sii', type: 'rut', value: '12.345.678-5', verification }], dataSubjectName: DATA_SUBJECT_NAME });
  expect(interaction.status).toBe(201);
  const granted = await api.http
    .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
    .set(auth)
    .send({ occurredAt, sourceSystem: 'web', sourceReference: `cap-${reference}`, evidence });
  expect(granted.status).toBe(201);
  return granted.body as { redecConsentId: string; artifactStatus: string };
}

/** How the bank chose to name the person on the certificate. */
const DATA_SUBJECT_NAME = 'María José Pérez Soto';

const KEY_SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;

describe('consent artifacts', () => {
  describe('with the certificate worker running in the API process', () => {
    let environment: TestEnvironment;
    let api: ApiApp;
    let key: string;

    beforeAll(async () => {
      environment = testEnvironment();
      api = await startApiApp(environment);
      key = (await api.tenantKey([...KEY_SCOPES])).apiKey;
    });
    afterAll(async () => {
      await api.close();
      await environment.dispose();
    });

    it('renders the certificate of an electronic grant, then serves the exact bytes its metadata hashes', async () => {
      const digital = await publish(api, key, 'digital');
      const { redecConsentId, artifactStatus } = await grant(api, key, digital, 'cliente-pdf', { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } });
      expect(artifactStatus).toBe('pending');
      const auth = { Authorization: `Bearer ${key}` };

      let metadata: Record<string, unknown> = {};
      await waitUntil(async () => {
        metadata = (await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact`).set(auth)).body;
        return metadata.status === 'ready';
      }, 10_000, 100);
      expect(metadata).toMatchObject({ redecConsentId, origin: 'generated_pdf', medium: 'consent_certificate', mediaType: 'application/pdf', externalReference: null });
      expect((await api.http.get(`/v1/redec/consents/${redecConsentId}`).set(auth)).body.artifactStatus).toBe('ready');

      const download = await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact/download`).set(auth).buffer(true).parse(binary);
      expect(download.status).toBe(200);
      expect(download.headers['content-type']).toBe('application/pdf');
      const body = download.body as Buffer;
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(sha256(body)).toBe(metadata.contentSha256);
      expect(body.length).toBe(metadata.size);
      // Written for the person: the bank's name and what each code means, as its presentation stood at the grant.
      const words = documentText(body).replace(/\s+/g, ' ');
      expect(words).toContain(`Certificado de consentimiento ${TEST_PRESENTATION.displayName}`);
      expect(words).toContain(`Lo que usted aceptó Titular ${DATA_SUBJECT_NAME}`);
      expect(words).toContain(`Para qué ${TEST_PRESENTATION.terms.finality['2']} (código 2)`);
      expect(words).toContain(`Objetivos ${TEST_PRESENTATION.terms.objective['02']} (código 02)`);
      expect(words).toContain('Se identificó con ClaveÚnica');
      expect(words.indexOf('a-1')).toBeGreaterThan(words.indexOf('Anexo técnico'));

      // A repeated render job (at-least-once delivery) records nothing new and keeps the same bytes.
      const queue: Queue = api.app.get(QueueRuntime).queue('consent-certificates');
      const tenantId = (await api.store.readAll()).find((e) => e.type === 'ConsentGranted')!.metadata.tenantId!;
      const job = await queue.add('consent-certificates', { tenantId, redecConsentId }, { jobId: `certificate-repeat-${redecConsentId}` });
      await waitUntil(async () => (await job.getState()) === 'completed', 10_000, 50);
      const facts = await api.store.readStream(redecStreams.consent(tenantId, redecConsentId));
      expect(facts.map((e) => e.type)).toEqual(['ConsentGranted', 'ArtifactStored']);
    });

    it('holds supplied recordings at grant time and never proxies an external resource', async () => {
      const phone = await publish(api, key, 'phone');
      const recording = Buffer.from('ID3 fake audio bytes for the test');
      const occurredAt = Date.now() - 60_000;
      const supplied = await grant(api, key, phone, 'cliente-audio', { kind: 'audio_recording', recordedAt: occurredAt + 30_000, mediaType: 'audio/mpeg', contentBase64: recording.toString('base64') }, occurredAt);
      expect(supplied.artifactStatus).toBe('ready');
      const auth = { Authorization: `Bearer ${key}` };
      const metadata = (await api.http.get(`/v1/redec/consents/${supplied.redecConsentId}/artifact`).set(auth)).body;
      expect(metadata).toMatchObject({ status: 'ready', origin: 'supplied', medium: 'call_recording', mediaType: 'audio/mpeg', contentSha256: sha256(recording), size: recording.length });
      const download = await api.http.get(`/v1/redec/consents/${supplied.redecConsentId}/artifact/download`).set(auth).buffer(true).parse(binary);
      expect(download.status).toBe(200);
      expect(Buffer.compare(download.body as Buffer, recording)).toBe(0);

      const external = await grant(api, key, phone, 'cliente-external', { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', externalReference: 'https://calls.example/123', contentSha256: 'c'.repeat(64) }, occurredAt);
      const externalMetadata = (await api.http.get(`/v1/redec/consents/${external.redecConsentId}/artifact`).set(auth)).body;
      expect(externalMetadata).toMatchObject({ origin: 'external_reference', externalReference: 'https://calls.example/123', contentSha256: 'c'.repeat(64), size: null });
      const refused = await api.http.get(`/v1/redec/consents/${external.redecConsentId}/artifact/download`).set(auth);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('artifact_held_externally');
    });
  });

  describe('with workers in a separate process (none here)', () => {
    let environment: TestEnvironment;
    let api: ApiApp;
    let key: string;

    beforeAll(async () => {
      environment = testEnvironment();
      api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
      key = (await api.tenantKey([...KEY_SCOPES])).apiKey;
    });
    afterAll(async () => {
      await api.close();
      await environment.dispose();
    });

    it('answers a pending download with 409 artifact_not_ready and Retry-After, and shows the evidence view without bytes', async () => {
      const digital = await publish(api, key, 'digital');
      const { redecConsentId } = await grant(api, key, digital, 'cliente-pending', { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-9' } });
      const auth = { Authorization: `Bearer ${key}` };
      const download = await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact/download`).set(auth);
      expect(download.status).toBe(409);
      expect(download.body.code).toBe('artifact_not_ready');
      expect(download.headers['retry-after']).toBe('5');
      expect((await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact`).set(auth)).body).toMatchObject({ status: 'pending', contentSha256: null });

      const evidence = await api.http.get(`/v1/redec/consents/${redecConsentId}/evidence`).set(auth);
      expect(evidence.status).toBe(200);
      expect(evidence.body).toMatchObject({
        redecConsentId,
        decision: 'granted',
        canonicalTiming: { clock: 'occurred_at' },
        template: { templateKey: 'redec-digital', version: 1 },
        regulatoryProfile: 'baseline',
        channel: 'digital',
        finalityCode: '2',
        mediumCode: '1',
        objectiveCodes: ['02'],
        provenance: { sourceSystem: 'web', sourceReference: 'cap-cliente-pending' },
        evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-9' }, artifactOrigin: 'generated_pdf' },
      });
      expect(JSON.stringify(evidence.body)).not.toMatch(/contentBase64|12\.345\.678|12345678/);
    });
  });
});
