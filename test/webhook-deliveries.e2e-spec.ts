import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { QueueRuntime } from '@ledger/queues';
import { redecStreams } from '@ledger/redec';
import { GrantNotification, notificationFor } from '@ledger/webhooks';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { runCli } from './support/processes';
import { Document, webhookBodyMismatches } from './support/openapi-schema';
import { startWebhookReceiver } from './support/webhook-receiver';

// docs/reference/events.md and docs/reference/webhooks.md: `redec.notification.required` delivered
// by the real dispatcher and BullMQ workers to a real HTTP receiver, signed
// with the Standard Webhooks scheme and verified with its reference library.

const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;

describe('webhook deliveries', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let tenantId: string;
  let consents: ReturnType<typeof redecConsents>;
  const auth = () => ({ Authorization: `Bearer ${key}` });

  async function registerEndpoint(url: string): Promise<{ endpointId: string; secret: string }> {
    const created = await api.http.post('/v1/webhook-endpoints').set(auth()).send({ url, eventTypes: ['redec.notification.required'] });
    expect(created.status).toBe(201);
    return created.body;
  }
  const revoke = (consent: GrantedConsent) =>
    api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
      .set(auth())
      .set('Idempotency-Key', randomUUID())
      .send({ channel: 'digital', occurredAt: Date.now() - 1000, sourceType: 'direct', identityAssurance: 'client_authenticated' });
  /** The messages a receiver got about one consent. */
  const about = (receiver: Awaited<ReturnType<typeof startWebhookReceiver>>, consent: GrantedConsent) =>
    receiver.received.filter((r) => JSON.parse(r.body).data.redec_consent_id === consent.redecConsentId);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ apiKey: key, tenantId } = await api.tenantKey([...SCOPES]));
    consents = redecConsents(api, key);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('delivers grant and revoke with the payload docs/reference/events.md shows, signed so that the reference verifier accepts it', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { secret } = await registerEndpoint(receiver.url);
      const consent = await consents.grant();
      await waitUntil(() => about(receiver, consent).length === 1, 15_000);
      const revoked = await revoke(consent);
      expect(revoked.status).toBe(201);
      await waitUntil(() => about(receiver, consent).length === 2, 15_000);

      const verifier = new Webhook(secret);
      const [grant, revocation] = about(receiver, consent).map((r) => {
        const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
        expect(r.headers['content-type']).toMatch(/^application\/json/);
        const verified = verifier.verify(r.body, headers) as { id: string };
        expect(verified.id).toBe(headers['webhook-id']);
        return JSON.parse(r.body);
      });
      expect(Object.keys(grant)).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(grant).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'redec.notification.required',
        createdAt: consent.recordedAt,
        data: {
          notification_reason: 'grant',
          internal_consent_code: consent.internalConsentCode,
          redec_consent_id: consent.redecConsentId,
          consent_action_id: consent.consentActionId,
          channel: 'digital',
          granted_at: consent.grantedAt,
          purpose: '2',
          medium: '1',
          objectives: ['02', '03'],
        },
      });
      expect(revocation).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'redec.notification.required',
        createdAt: revoked.body.recordedAt,
        data: {
          notification_reason: 'revoke',
          internal_consent_code: consent.internalConsentCode,
          redec_consent_id: consent.redecConsentId,
          consent_action_id: revoked.body.consentActionId,
          channel: 'digital',
          revoked_at: revoked.body.revokedAt,
        },
      });
      expect(revocation.id).not.toBe(grant.id);
      // As the OpenAPI document's webhooks section describes them.
      const document = (await api.http.get('/openapi.json')).body as Document;
      expect([grant, revocation].flatMap((body) => webhookBodyMismatches(document, body))).toEqual([]);
      expect(webhookBodyMismatches(document, { ...revocation, data: { ...revocation.data, purpose: '2' } })).not.toEqual([]);
      // A signature made with another secret is refused by the same verifier: the check above can fail.
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(about(receiver, consent)[0].body, about(receiver, consent)[0].headers as Record<string, string>)).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('signs with the old and the new secret during a rotation overlap, so either verifies', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { endpointId, secret: oldSecret } = await registerEndpoint(receiver.url);
      const rotated = await api.http.post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`).set(auth()).set('Idempotency-Key', randomUUID()).send({ overlapSeconds: 3600 });
      expect(rotated.status).toBe(200);
      const consent = await consents.grant();
      await waitUntil(() => about(receiver, consent).length === 1, 15_000);
      const [delivery] = about(receiver, consent);
      expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
      for (const secret of [oldSecret, rotated.body.secret]) {
        expect(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      }
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver that fails twice with the same webhook-id, three deliveries and nothing more, each attempt readable through the API', async () => {
    // 503 with Retry-After: 1 makes the retries come after a second instead of the schedule's minutes.
    const receiver = await startWebhookReceiver((_request, index) => (index < 2 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 204 }));
    try {
      const { endpointId } = await registerEndpoint(receiver.url);
      const consent = await consents.grant();
      await waitUntil(() => about(receiver, consent).length === 3, 20_000);
      // Nothing more after the success.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const attempts = about(receiver, consent);
      expect(attempts).toHaveLength(3);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
      expect(attempts[1].receivedAt - attempts[0].receivedAt).toBeGreaterThanOrEqual(900);

      await waitUntil(async () => (await api.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(auth())).body.items?.length === 3, 5_000);
      const { deliveries } = (await api.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(auth())).body;
      expect(deliveries.map((d: { outcome: string; status: number; attempt: number }) => [d.outcome, d.status, d.attempt])).toEqual([
        ['delivered', 204, 3],
        ['failed', 503, 2],
        ['failed', 503, 1],
      ]);
      expect(new Set(deliveries.map((d: { messageId: string }) => d.messageId))).toEqual(new Set([attempts[0].headers['webhook-id']]));
    } finally {
      await receiver.close();
    }
  });

  it('sends each endpoint of the tenant its own copy; an endpoint registered after the fact gets nothing of it', async () => {
    const first = await startWebhookReceiver();
    const second = await startWebhookReceiver();
    const late = await startWebhookReceiver();
    try {
      await registerEndpoint(first.url);
      await registerEndpoint(second.url);
      const consent = await consents.grant();
      await registerEndpoint(late.url);
      await waitUntil(() => about(first, consent).length === 1 && about(second, consent).length === 1, 15_000);
      const later = await consents.grant();
      await waitUntil(() => about(late, later).length === 1, 15_000);
      expect(about(late, consent)).toEqual([]);
    } finally {
      await Promise.all([first.close(), second.close(), late.close()]);
    }
  });

  it('disables an endpoint that answers 410 Gone, and delivers nothing more to it', async () => {
    const receiver = await startWebhookReceiver(() => ({ status: 410 }));
    try {
      const { endpointId } = await registerEndpoint(receiver.url);
      const consent = await consents.grant();
      await waitUntil(async () => (await api.http.get(`/v1/webhook-endpoints/${endpointId}`).set(auth())).body.status === 'disabled', 15_000);
      expect((await api.http.get(`/v1/webhook-endpoints/${endpointId}`).set(auth())).body).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
      expect(about(receiver, consent)).toHaveLength(1);
      const later = await consents.grant();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(about(receiver, later)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  describe('redelivery', () => {
    /**
     * A delivery that failed for good: the endpoint is registered after the
     * grant (so the dispatcher asks for nothing), then the grant's message is
     * queued for it with a single attempt, which the receiver refuses.
     */
    async function failedDelivery() {
      const receiver = await startWebhookReceiver(() => ({ status: 500 }));
      const consent = await consents.grant();
      const { endpointId } = await registerEndpoint(receiver.url);
      const [grantFact] = await api.store.readStream(redecStreams.consent(tenantId, consent.redecConsentId), { maxCount: 1 });
      const message = notificationFor(grantFact)!;
      const queue = api.app.get(QueueRuntime).queue('webhook-deliveries');
      const job = await queue.add('webhook-deliveries', { tenantId, endpointId, message, eventPosition: grantFact.position }, { jobId: `test-${randomUUID()}`, attempts: 1 });
      await waitUntil(async () => (await job.getState()) === 'failed', 10_000);
      return { receiver, consent, endpointId, message };
    }

    it('puts the failed deliveries of an endpoint since an instant back to work, with the same webhook-id, through the API', async () => {
      const { receiver, endpointId, message } = await failedDelivery();
      try {
        receiver.respondWith(() => ({ status: 204 }));
        const later = await api.http.post(`/v1/webhook-endpoints/${endpointId}/redeliver`).set(auth()).send({ since: Date.now() + 60_000 });
        expect(later.body).toEqual({ endpointId, redelivered: 0 });
        const redelivered = await api.http.post(`/v1/webhook-endpoints/${endpointId}/redeliver`).set(auth()).send({ since: Date.now() - 60_000 });
        expect([redelivered.status, redelivered.body]).toEqual([200, { endpointId, redelivered: 1 }]);
        await receiver.waitForCount(2);
        expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([message.id, message.id]);
      } finally {
        await receiver.close();
      }
    });

    it('delivers one message again on request, only to an endpoint it was meant for', async () => {
      const { receiver, endpointId, message } = await failedDelivery();
      const other = await startWebhookReceiver();
      try {
        receiver.respondWith(() => ({ status: 204 }));
        const again = await api.http.post(`/v1/webhook-endpoints/${endpointId}/messages/${message.id}/redeliver`).set(auth());
        expect([again.status, again.body]).toEqual([202, { messageId: message.id }]);
        await receiver.waitForCount(2);
        expect(JSON.parse(receiver.received[1].body)).toEqual(message);

        const { endpointId: otherEndpoint } = await registerEndpoint(other.url);
        expect((await api.http.post(`/v1/webhook-endpoints/${otherEndpoint}/messages/${message.id}/redeliver`).set(auth())).status).toBe(404);
        expect((await api.http.post(`/v1/webhook-endpoints/${endpointId}/messages/evt_not-a-message/redeliver`).set(auth())).status).toBe(404);
        await api.http.delete(`/v1/webhook-endpoints/${endpointId}`).set(auth());
        expect((await api.http.post(`/v1/webhook-endpoints/${endpointId}/messages/${message.id}/redeliver`).set(auth())).body.code).toBe('webhook_endpoint_disabled');
      } finally {
        await Promise.all([receiver.close(), other.close()]);
      }
    });

    it('is also an operator command: `webhooks redeliver --endpoint ID --since T`, and `queues status` shows the failures', async () => {
      const { receiver, endpointId, message } = await failedDelivery();
      try {
        const status = await runCli(['queues', 'status'], environment.env);
        expect(status.status).toBe(0);
        const deliveries = status.json.queues.find((q: { queue: string }) => q.queue === 'webhook-deliveries');
        expect(deliveries.failed).toBeGreaterThanOrEqual(1);
        expect(deliveries.recentFailures).toEqual(expect.arrayContaining([expect.objectContaining({ endpointId, tenantId, failedReason: 'http_500' })]));
        expect(JSON.stringify(status.json)).not.toContain((message.data as GrantNotification).internal_consent_code);

        receiver.respondWith(() => ({ status: 204 }));
        const since = new Date(Date.now() - 60_000).toISOString();
        const redelivered = await runCli(['webhooks', 'redeliver', '--tenant', tenantId, '--endpoint', endpointId, '--since', since], environment.env);
        expect([redelivered.status, redelivered.json]).toEqual([0, { endpointId, since: Date.parse(since), redelivered: 1 }]);
        await receiver.waitForCount(2);
        expect(receiver.received[1].headers['webhook-id']).toBe(message.id);
        expect((await runCli(['webhooks', 'redeliver', '--tenant', tenantId, '--endpoint', 'nope'], environment.env)).status).toBe(2);
        expect((await runCli(['webhooks', 'redeliver', '--endpoint', endpointId], environment.env)).status).toBe(2);
      } finally {
        await receiver.close();
      }
    }, 120_000); // four CLI runs, each a new Node process (~3 s alone); the margin is for a loaded 2-core machine
  });
});
