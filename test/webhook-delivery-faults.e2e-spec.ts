import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ListeningApiApp, startListeningApiApp, waitUntil } from './support/api-app';
import { deleteRedisKeys, testEnvironment } from './support/environment';
import { ApiProcess, freePort, runCli, spawnApi } from './support/processes';
import { redecConfiguration, rutOf } from './support/redec-fixtures';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 5, "done when": faults lose no delivery. The service is killed between
// a grant and its delivery; Redis stops while grants are recorded.

const MINUTE = 60_000;
type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
const consentIdsIn = (receiver: Receiver) => receiver.received.map((r) => JSON.parse(r.body).data.redec_consent_id as string);

/** Calls the API as an integrator's backend does, with plain fetch. */
function client(baseUrl: string, apiKey: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** A configuration, a verified customer and `count` interactions, ready to be granted. */
async function openInteractions(call: ReturnType<typeof client>, count: number): Promise<string[]> {
  const configuration = await call('POST', '/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}` }));
  expect(configuration.status).toBe(201);
  const customer = await call('POST', '/v1/customers/resolve', {
    userReference: `cliente-${randomUUID()}`,
    identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf(23_456_789), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
  });
  expect(customer.status).toBe(201);
  const interactions: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const opened = await call('POST', '/v1/redec/consent-interactions', { configurationId: configuration.body.configurationId, customerId: customer.body.customerId });
    expect(opened.status).toBe(201);
    interactions.push(opened.body.interactionId);
  }
  return interactions;
}

/** A tenant's client of the listening service, with an endpoint at `receiver` subscribed to the notices a grant asks for. */
async function subscribedClient(api: ListeningApiApp, receiver: Receiver): Promise<ReturnType<typeof client>> {
  const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
  const call = client(api.publicUrl, apiKey);
  expect((await call('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['redec.notification.required'] })).status).toBe(201);
  return call;
}

const grantBody = () => ({
  occurredAt: Date.now() - MINUTE,
  sourceSystem: 'crm',
  sourceReference: `cap-${randomUUID()}`,
  evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
});

describe('webhook deliveries under faults', () => {
  it('delivers exactly once per endpoint a grant recorded by a service killed before delivering it', async () => {
    const environment = testEnvironment();
    const receivers = [await startWebhookReceiver(), await startWebhookReceiver()];
    let api: ApiProcess | undefined;
    try {
      const tenant = await runCli(['tenant', 'create', '--name', 'Banco Ejemplo'], environment.env);
      const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:identity-assert'], environment.env);
      // First life: no workers in this process, so nothing can be delivered before the kill.
      api = await spawnApi({ ...environment.env, LEDGER_WORKERS: 'external' });
      let call = client(api.baseUrl, key.json.apiKey);
      for (const receiver of receivers) {
        expect((await call('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['redec.notification.required'] })).status).toBe(201);
      }
      const [interactionId] = await openInteractions(call, 1);
      const granted = await call('POST', `/v1/redec/consent-interactions/${interactionId}/grant`, grantBody());
      expect(granted.status).toBe(201);
      api.child.kill('SIGKILL');
      await api.exited;

      api = await spawnApi(environment.env);
      call = client(api.baseUrl, key.json.apiKey);
      await waitUntil(() => receivers.every((r) => r.received.length >= 1), 20_000);
      // Long enough for a duplicate to show up if the replay enqueued one.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      for (const receiver of receivers) expect(consentIdsIn(receiver)).toEqual([granted.body.redecConsentId]);
    } finally {
      if (api && api.child.exitCode === null) {
        api.child.kill('SIGTERM');
        await api.exited;
      }
      await Promise.all(receivers.map((r) => r.close()));
      await environment.dispose();
    }
  }, 180_000); // two starts of the service as a process from source, and CLI runs: ~20 s alone, the margin is for a loaded machine

  it('delivers again what Redis lost with the queues, once the receiver answers, and not what was delivered before the finished mark', async () => {
    const environment = testEnvironment();
    const receiver = await startWebhookReceiver();
    const api = await startListeningApiApp(environment);
    try {
      const call = await subscribedClient(api, receiver);
      const interactions = await openInteractions(call, 3);
      const beforeDelivered = await api.store.headPosition();
      const delivered = await call('POST', `/v1/redec/consent-interactions/${interactions[0]}/grant`, grantBody());
      await receiver.waitForCount(1);
      // Saved in the store once a second: everything up to the delivered grant has finished.
      await waitUntil(async () => (await api.store.finishedMarks.of('webhook-deliveries')) > beforeDelivered, 10_000);

      // The next deliveries wait for a retry, in a queue that Redis then loses.
      receiver.respondWith(() => ({ status: 503, headers: { 'Retry-After': '3600' } }));
      const waiting = await Promise.all(interactions.slice(1).map((id) => call('POST', `/v1/redec/consent-interactions/${id}/grant`, grantBody())));
      await receiver.waitForCount(3);
      receiver.respondWith(() => ({ status: 200 }));
      await deleteRedisKeys(environment.prefix);

      await receiver.waitForCount(5, 30_000);
      // Long enough for a duplicate of the delivered grant to show up if the dispatcher had resumed from before it.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const waitingIds = waiting.map((grant) => grant.body.redecConsentId as string).sort();
      expect(consentIdsIn(receiver).slice(0, 1)).toEqual([delivered.body.redecConsentId]);
      expect(consentIdsIn(receiver).slice(1, 3).sort()).toEqual(waitingIds);
      expect(consentIdsIn(receiver).slice(3).sort()).toEqual(waitingIds);
      // The same messages: a receiver deduplicates them by webhook-id.
      const idsOf = (from: number, to: number) => receiver.received.slice(from, to).map((r) => r.headers['webhook-id']).sort();
      expect(idsOf(3, 5)).toEqual(idsOf(1, 3));
      // The operator hears of it in the service's log.
      expect(api.logs.filter((line) => line.context === 'dispatcher webhook-deliveries').map((line) => line.msg)).toContain(
        'Redis lost the queues and this checkpoint: following again from the finished mark',
      );
    } finally {
      await api.close();
      await receiver.close();
      await environment.dispose();
    }
  }, 90_000);

  describe('with Redis stopped while grants are recorded', () => {
    let redisServer: ChildProcess | undefined;
    let redisDir: string;
    let redisPort: number;

    /** A Redis of this test's own, with an append-only file, so that stopping and starting it keeps its data as a production Redis does. */
    async function startRedis(): Promise<void> {
      redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes', '--save', ''], { stdio: 'ignore' });
      await waitUntil(async () => {
        const probe = new Redis({ port: redisPort, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          probe.disconnect();
        }
      }, 10_000);
    }

    async function stopRedis(): Promise<void> {
      const server = redisServer!;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }

    beforeAll(async () => {
      redisDir = mkdtempSync(join(tmpdir(), 'ledger-redis-'));
      redisPort = await freePort();
      await startRedis();
    });
    afterAll(async () => {
      if (redisServer && redisServer.exitCode === null) await stopRedis();
      rmSync(redisDir, { recursive: true, force: true });
    });

    it('keeps accepting grants, and delivers every one when Redis is back', async () => {
      const environment = testEnvironment({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
      const receiver = await startWebhookReceiver();
      const api = await startListeningApiApp(environment);
      try {
        const call = await subscribedClient(api, receiver);
        const interactions = await openInteractions(call, 4);
        const before = await call('POST', `/v1/redec/consent-interactions/${interactions[0]}/grant`, grantBody());
        await receiver.waitForCount(1);

        await stopRedis();
        // Recorded in the event store; the answer waits its bounded read-your-writes time and goes out.
        const during = await Promise.all(interactions.slice(1).map((id) => call('POST', `/v1/redec/consent-interactions/${id}/grant`, grantBody())));
        expect(during.map((g) => g.status)).toEqual([201, 201, 201]);
        expect(receiver.received).toHaveLength(1);

        await startRedis();
        await receiver.waitForCount(4, 30_000);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(consentIdsIn(receiver).sort()).toEqual([before, ...during].map((g) => g.body.redecConsentId as string).sort());
      } finally {
        await api.close();
        await receiver.close();
        await environment.dispose();
      }
    }, 90_000);
  });
});
