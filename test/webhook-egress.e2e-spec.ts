import { AddressInfo, createServer } from 'node:net';
import { NOTIFICATION_REQUIRED } from '@ledger/webhooks';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectValidationError, recordsNothingAtAll } from './support/expectations';
import { freePort, spawnApi } from './support/processes';
import { redecConsents } from './support/redec-consents';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 13, "Egress": the webhook URL policy is its own setting,
// LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, strict whatever NODE_ENV says;
// a target is checked at registration and again at delivery, and the
// delivery history does not tell one network failure from another.

const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;
type Delivery = { outcome: string; status: number | null; latencyMs: number | null; error: string | null };

/** Non-public targets in every form the issue found passing: private, loopback, link-local, unique-local, CGNAT, reserved, documentation, metadata, and IPv4 behind IPv6. */
const NON_PUBLIC_TARGETS = [
  'https://169.254.169.254/latest/meta-data/',
  'https://10.0.0.1/hooks',
  'https://192.168.1.1/hooks',
  'https://127.0.0.1/hooks',
  'https://[fd00::1]/hooks',
  'https://[fe80::1]/hooks',
  'https://100.64.0.1/hooks',
  'https://192.0.0.8/hooks',
  'https://192.0.2.1/hooks',
  'https://localhost/hooks',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://[::ffff:10.0.0.1]/hooks',
  'https://[64:ff9b::a9fe:a9fe]/hooks', // NAT64 of 169.254.169.254
  'https://[64:ff9b:1::a00:1]/hooks', // local-use NAT64 of 10.0.0.1
  'https://[2002:a9fe:a9fe::]/hooks', // 6to4 of 169.254.169.254
  'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks', // Teredo, client 127.0.0.1
];

/** The service as production starts it: without the tests' LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS, with `settings` on top. */
function startWithoutPrivateNetworks(environment: TestEnvironment, settings: Record<string, string>): Promise<ApiApp> {
  const { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: _allowedInTests, ...strict } = environment.env;
  return startApiApp({ ...environment, env: strict }, { LEDGER_WORKERS: 'external', ...settings });
}

describe('webhook egress', () => {
  const register = (api: ApiApp, apiKey: string, url: string) =>
    api.http.post('/v1/webhook-endpoints').set({ Authorization: `Bearer ${apiKey}` }).send({ url, eventTypes: [NOTIFICATION_REQUIRED] });

  describe.each([
    ['unset', {}, undefined],
    ['development', { NODE_ENV: 'development' }, 'false'],
    ['test', { NODE_ENV: 'test' }, '1'],
    ['production', { NODE_ENV: 'production' }, 'TRUE'],
  ] as const)('with NODE_ENV %s and LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS not exactly true', (_name, nodeEnv, allowPrivate) => {
    let environment: TestEnvironment;
    let api: ApiApp;
    let apiKey: string;

    beforeAll(async () => {
      environment = testEnvironment();
      api = await startWithoutPrivateNetworks(environment, { ...nodeEnv, ...(allowPrivate === undefined ? {} : { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: allowPrivate }) });
      ({ apiKey } = await api.tenantKey(['consent:admin']));
    });
    afterAll(async () => {
      await api?.close();
      await environment?.dispose();
    });

    it('refuses every non-public target with 400 on `url`, recording nothing', async () => {
      for (const url of NON_PUBLIC_TARGETS) {
        const response = await recordsNothingAtAll(api, () => register(api, apiKey, url));
        expect({ url, status: response.status }).toEqual({ url, status: 400 });
        expectValidationError(response, [{ field: 'url', reason: 'private_address_not_allowed' }], 'private_address_not_allowed');
      }
    });

    it('refuses plain http, even to loopback, and a name that resolves to no address', async () => {
      for (const url of ['http://127.0.0.1:9/hooks', 'http://localhost:9/hooks']) {
        expectValidationError(await recordsNothingAtAll(api, () => register(api, apiKey, url)), [{ field: 'url', reason: 'https_required' }], 'https_required');
      }
      // RFC 6761: `.invalid` never resolves.
      expectValidationError(await recordsNothingAtAll(api, () => register(api, apiKey, 'https://hooks.bank.invalid/redec')), [{ field: 'url', reason: 'host_not_resolved' }], 'host_not_resolved');
    });

    it('accepts https to a public address', async () => {
      const response = await register(api, apiKey, 'https://8.8.8.8/hooks');
      expect(response.status).toBe(201);
      expect(response.body.url).toBe('https://8.8.8.8/hooks');
    });

    it('refuses a public address on any port but 443 with port_not_allowed, recording nothing', async () => {
      for (const url of ['https://8.8.8.8:8443/hooks', 'https://8.8.8.8:25/hooks', 'https://[2001:4860:4860::8888]:6379/hooks', 'https://dns.google:22/hooks']) {
        expectValidationError(await recordsNothingAtAll(api, () => register(api, apiKey, url)), [{ field: 'url', reason: 'port_not_allowed' }], 'port_not_allowed');
      }
      // 443 written out is https's own port: the URL is kept without it.
      expect((await register(api, apiKey, 'https://8.8.8.8:443/hooks')).body.url).toBe('https://8.8.8.8/hooks');
    });
  });

  describe('with LEDGER_WEBHOOK_ALLOWED_PORTS=443,8443', () => {
    let environment: TestEnvironment;
    let api: ApiApp;
    let apiKey: string;

    beforeAll(async () => {
      environment = testEnvironment();
      api = await startWithoutPrivateNetworks(environment, { LEDGER_WEBHOOK_ALLOWED_PORTS: '443, 8443' });
      ({ apiKey } = await api.tenantKey(['consent:admin']));
    });
    afterAll(async () => {
      await api?.close();
      await environment?.dispose();
    });

    it('accepts those ports of a public address and refuses any other', async () => {
      for (const url of ['https://8.8.8.8/hooks', 'https://8.8.8.8:8443/hooks']) expect((await register(api, apiKey, url)).status).toBe(201);
      expectValidationError(await recordsNothingAtAll(api, () => register(api, apiKey, 'https://8.8.8.8:8080/hooks')), [{ field: 'url', reason: 'port_not_allowed' }], 'port_not_allowed');
    });
  });

  describe('with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, even in production', () => {
    let environment: TestEnvironment;
    let api: ApiApp;

    beforeAll(async () => {
      environment = testEnvironment();
      api = await startApiApp(environment, { LEDGER_WORKERS: 'external', NODE_ENV: 'production' });
    });
    afterAll(async () => {
      await api?.close();
      await environment?.dispose();
    });

    it('accepts private, loopback and link-local targets, and plain http to loopback', async () => {
      const { apiKey } = await api.tenantKey(['consent:admin']);
      for (const url of ['https://10.0.0.1/hooks', 'https://169.254.169.254/hooks', 'https://receiver.internal/hooks', 'http://127.0.0.1:9/hooks']) {
        const response = await register(api, apiKey, url);
        expect({ url, status: response.status }).toEqual({ url, status: 201 });
      }
    });
  });

  describe('delivery', () => {
    let environment: TestEnvironment;
    let api: ApiApp | undefined;

    const deliveriesOf = async (apiKey: string, endpointId: string): Promise<Delivery[]> => {
      const response = await api!.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set({ Authorization: `Bearer ${apiKey}` });
      expect(response.status).toBe(200);
      return response.body.items;
    };

    beforeEach(() => {
      environment = testEnvironment();
    });
    afterEach(async () => {
      await api?.close();
      api = undefined;
      await environment.dispose();
    });

    it('checks the target again: an endpoint registered while private networks were allowed gets nothing once they are not', async () => {
      const receiver = await startWebhookReceiver();
      try {
        api = await startApiApp(environment);
        const { apiKey } = await api.tenantKey([...SCOPES]);
        const registered = await register(api, apiKey, receiver.url);
        expect(registered.status).toBe(201);
        await api.close();

        // The same ledger and Redis, restarted without the setting.
        api = await startApiApp(environment, { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
        await redecConsents(api, apiKey).grant();
        await waitUntil(async () => (await deliveriesOf(apiKey, registered.body.endpointId)).length > 0, 15_000);
        expect(await deliveriesOf(apiKey, registered.body.endpointId)).toEqual([expect.objectContaining({ outcome: 'failed', status: null, latencyMs: null, error: 'target_not_allowed' })]);
        expect(receiver.received).toEqual([]);
      } finally {
        await receiver.close();
      }
    }, 60_000);

    it('shows a closed port and a port that drops the connection alike, without timing; an HTTP answer with its status', async () => {
      // Open, but not HTTP: accepts and resets every connection.
      const dropping = createServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
      const answering = await startWebhookReceiver(() => ({ status: 500 }));
      try {
        api = await startApiApp(environment);
        const { apiKey } = await api.tenantKey([...SCOPES]);
        const targets = {
          closed: `http://127.0.0.1:${await freePort()}/hooks`,
          dropping: `http://127.0.0.1:${(dropping.address() as AddressInfo).port}/hooks`,
          answering: answering.url,
        };
        const endpoints: Record<string, string> = {};
        for (const [name, url] of Object.entries(targets)) {
          const registered = await register(api, apiKey, url);
          expect(registered.status).toBe(201);
          endpoints[name] = registered.body.endpointId;
        }
        await redecConsents(api, apiKey).grant();
        const firstAttempt = async (name: string) => {
          await waitUntil(async () => (await deliveriesOf(apiKey, endpoints[name])).length > 0, 15_000);
          const [attempt] = (await deliveriesOf(apiKey, endpoints[name])).slice(-1);
          return attempt;
        };
        const unanswered = { outcome: 'failed', status: null, latencyMs: null, error: 'no_response' };
        expect(await firstAttempt('closed')).toMatchObject(unanswered);
        expect(await firstAttempt('dropping')).toMatchObject(unanswered);
        expect(await firstAttempt('answering')).toMatchObject({ outcome: 'failed', status: 500, latencyMs: expect.any(Number), error: 'http_500' });
      } finally {
        await answering.close();
        await new Promise((resolve) => dropping.close(resolve));
      }
    }, 60_000);
  });

  it('refuses to start with a NODE_ENV it does not know, naming it', async () => {
    const environment = testEnvironment();
    try {
      const outcome = await spawnApi({ ...environment.env, NODE_ENV: 'staging' }).then(
        (started) => {
          started.child.kill('SIGKILL');
          return 'started';
        },
        (error: Error) => error.message,
      );
      expect(outcome).toMatch(/^API exited during start:/);
      expect(outcome).toContain('ConfigError: NODE_ENV must be unset, development, test or production; it is "staging"');
    } finally {
      await environment.dispose();
    }
  }, 90_000);
});
