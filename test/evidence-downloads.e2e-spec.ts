import { randomUUID } from 'node:crypto';
import type { Response } from 'superagent';
import { binaryBody } from './support/text-body';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectValidationError, recordsNoFact } from './support/expectations';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// Issue 13, "Evidence downloads": evidence is recorded only with a media type
// its kind takes (a recording is audio, a paper original a PDF or an image),
// on every route that carries evidence, and every download is a file to save,
// never a page the browser renders or sniffs under the service's origin.

const MINUTE = 60_000;
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;
const BYTES = Buffer.from('<html><script>alert(document.domain)</script></html>');

describe('evidence media types and downloads', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let auth: { Authorization: string };
  const configurations: Record<'digital' | 'phone' | 'in_person', string> = { digital: '', phone: '', in_person: '' };
  let nextRut = 23_400_000;

  const post = (path: string, body: object) => api.http.post(path).set(auth).send(body);
  const customer = async () => {
    const resolved = await post('/v1/customers/resolve', {
      userReference: `cliente-${randomUUID()}`,
      identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRut += 7919)), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
    });
    expect(resolved.status).toBe(201);
    return resolved.body.customerId as string;
  };
  const interaction = async (channel: keyof typeof configurations) => {
    const opened = await post('/v1/redec/consent-interactions', { configurationId: configurations[channel], customerId: await customer() });
    expect(opened.status).toBe(201);
    return opened.body.interactionId as string;
  };
  const grant = (interactionId: string, evidence: object, occurredAt = Date.now() - MINUTE) =>
    post(`/v1/redec/consent-interactions/${interactionId}/grant`, { occurredAt, sourceSystem: 'pbx', sourceReference: `cap-${randomUUID()}`, evidence });
  const audio = (mediaType: string, occurredAt: number) => ({ kind: 'audio_recording', recordedAt: occurredAt, mediaType, contentBase64: BYTES.toString('base64') });
  const paper = (mediaType: string) => ({ kind: 'physical_document', digitizedAt: Date.now() - MINUTE, mediaType, contentBase64: BYTES.toString('base64') });
  const download = (redecConsentId: string) => api.http.get(`/v1/redec/consents/${redecConsentId}/artifact/download`).set(auth).buffer(true).parse(binaryBody);

  function expectAttachment(response: Response, mediaType: string, fileName: string) {
    expect(response.status).toBe(200);
    expect({
      type: response.headers['content-type'],
      disposition: response.headers['content-disposition'],
      nosniff: response.headers['x-content-type-options'],
      csp: response.headers['content-security-policy'],
    }).toEqual({ type: mediaType, disposition: `attachment; filename="${fileName}"`, nosniff: 'nosniff', csp: "sandbox; default-src 'none'" });
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    auth = { Authorization: `Bearer ${(await api.tenantKey([...SCOPES])).apiKey}` };
    for (const channel of Object.keys(configurations) as Array<keyof typeof configurations>) {
      const published = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${channel}-${randomUUID()}`, channel }));
      expect(published.status).toBe(201);
      configurations[channel] = published.body.configurationId;
    }
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('takes an external reference that is an https URL or has no scheme, and refuses any other scheme with must_be_https_or_opaque, recording nothing', async () => {
    const occurredAt = Date.now() - MINUTE;
    const held = (externalReference: string) => ({ kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', externalReference, contentSha256: 'a'.repeat(64) });
    for (const refused of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'http://calls.bank.example/1', 'https:calls']) {
      const interactionId = await interaction('phone');
      const response = await recordsNoFact(api, () => grant(interactionId, held(refused), occurredAt));
      expectValidationError(response, [{ field: 'evidence.externalReference', reason: 'must_be_https_or_opaque' }]);
    }
    for (const accepted of ['https://calls.bank.example/2026/0042', 'calls/2026/0042', 'PBX-0042']) {
      const granted = await grant(await interaction('phone'), held(accepted), occurredAt);
      expect(granted.status).toBe(201);
      expect((await api.http.get(`/v1/redec/consents/${granted.body.redecConsentId}/artifact`).set(auth)).body.externalReference).toBe(accepted);
    }
  });

  it("refuses a grant whose evidence has a media type its kind does not take, with 400 on evidence.mediaType, recording nothing", async () => {
    const occurredAt = Date.now() - MINUTE;
    const refused: Array<[keyof typeof configurations, object]> = [
      ['phone', audio('text/html', occurredAt)],
      ['phone', audio('image/svg+xml', occurredAt)],
      ['phone', audio('application/pdf', occurredAt)],
      ['phone', { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'text/html', externalReference: 'pbx-calls/1', contentSha256: 'a'.repeat(64) }],
      ['in_person', paper('text/html')],
      ['in_person', paper('application/xhtml+xml')],
      ['in_person', paper('audio/mpeg')],
    ];
    for (const [channel, evidence] of refused) {
      const interactionId = await interaction(channel);
      const response = await recordsNoFact(api, () => grant(interactionId, evidence, occurredAt));
      expectValidationError(response, [{ field: 'evidence.mediaType', reason: 'media_type_not_accepted' }], 'media_type_not_accepted');
      expect(response.body.errors).toHaveLength(1);
    }
    // The refusal claimed nothing: the same interaction takes the evidence with a type of its kind.
    const interactionId = await interaction('phone');
    expect((await grant(interactionId, audio('text/html', occurredAt), occurredAt)).status).toBe(400);
    expect((await grant(interactionId, audio('audio/ogg', occurredAt), occurredAt)).status).toBe(201);
  });

  it('refuses the same evidence in an item of a Multi-Consent decision, naming the item, recording nothing', async () => {
    const occurredAt = Date.now() - MINUTE;
    const customerId = await customer();
    const response = await recordsNoFact(api, () =>
      api.http
        .post('/v1/consent-decisions')
        .set(auth)
        .set('Idempotency-Key', randomUUID())
        .send({ customerId, occurredAt, sourceSystem: 'pbx', sourceReference: `cap-${randomUUID()}`, items: [{ configurationId: configurations.phone, decision: 'accepted', redec: { evidence: audio('text/html', occurredAt) } }] }),
    );
    expectValidationError(response, [{ field: 'items[0].redec.evidence.mediaType', reason: 'media_type_not_accepted' }], 'media_type_not_accepted');
  });

  it('refuses it in the grant of a general consent too', async () => {
    const published = await post('/v1/configurations', { templateKey: `tos-${randomUUID()}`, title: 'Términos', text: 'Acepto los términos.', channel: 'phone', captureTiming: 'deferred_external' });
    expect(published.status).toBe(201);
    const opened = await post('/v1/consent-interactions', { configurationId: published.body.configurationId, customerId: await customer() });
    expect(opened.status).toBe(201);
    const occurredAt = Date.now() - MINUTE;
    const response = await recordsNoFact(api, () =>
      post(`/v1/consent-interactions/${opened.body.interactionId}/grant`, { occurredAt, sourceSystem: 'pbx', sourceReference: 'call-1', evidence: audio('text/html', occurredAt) }),
    );
    expectValidationError(response, [{ field: 'evidence.mediaType', reason: 'media_type_not_accepted' }], 'media_type_not_accepted');
  });

  it('serves every download as an attachment named by medium, consent and type, with nosniff and a sandboxing CSP', async () => {
    const occurredAt = Date.now() - MINUTE;
    const recording = await grant(await interaction('phone'), audio('audio/mpeg', occurredAt), occurredAt);
    expect(recording.status).toBe(201);
    const recordingDownload = await download(recording.body.redecConsentId);
    expectAttachment(recordingDownload, 'audio/mpeg', `call_recording-${recording.body.redecConsentId}.mp3`);
    expect(Buffer.compare(recordingDownload.body as Buffer, BYTES)).toBe(0);

    const scan = await grant(await interaction('in_person'), paper('image/png'));
    expect(scan.status).toBe(201);
    expectAttachment(await download(scan.body.redecConsentId), 'image/png', `paper_original-${scan.body.redecConsentId}.png`);

    const certificate = await grant(await interaction('digital'), { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } });
    expect(certificate.status).toBe(201);
    const { redecConsentId } = certificate.body;
    await waitUntil(async () => (await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact`).set(auth)).body.status === 'ready', 15_000);
    expectAttachment(await download(redecConsentId), 'application/pdf', `consent_certificate-${redecConsentId}.pdf`);
  });
});
