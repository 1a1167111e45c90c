import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo, Socket, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { SqliteEventStore } from '@ledger/event-store';
import { deliverWebhook, DeliveryFailed } from '../deliveries/deliver-webhook';
import { disableWebhookEndpoint, registerWebhookEndpoint } from '../endpoints/webhook-endpoints';
import { NOTIFICATION_REQUIRED, WebhookMessage } from '../notification-payload';
import {
  DeliveryAttemptObservation,
  LATENCY_BUCKETS_MS,
  WebhookDeliveryMetrics,
  attemptIncrements,
  bucketIndex,
  deliveryMetricFamilies,
  deliveryMetricsKey,
  parseDeliveryMetrics,
  statusClass,
} from './delivery-metrics';
import { renderExposition } from './exposition';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const observation = (overrides: Partial<DeliveryAttemptObservation>): DeliveryAttemptObservation => ({
  outcome: 'delivered',
  status: 204,
  latencyMs: 12,
  sinceRecordedMs: 300,
  ...overrides,
});

describe('pure helpers', () => {
  it('classes statuses; no answer is none', () => {
    expect([200, 204, 299, 301, 404, 410, 429, 500, 503, null, 0, 600].map(statusClass)).toEqual([
      '2xx', '2xx', '2xx', '3xx', '4xx', '4xx', '4xx', '5xx', '5xx', 'none', 'other', 'other',
    ]);
  });

  it('puts a value in the first bucket whose bound it does not exceed, past the last in +Inf', () => {
    expect(LATENCY_BUCKETS_MS).toEqual([50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000]);
    expect([0, 50, 51, 100, 999, 1_000, 1_001, 60_000, 60_001, 86_400_000].map((ms) => bucketIndex(ms))).toEqual([0, 0, 1, 1, 4, 4, 5, 9, 10, 10]);
  });

  it('counts a delivered attempt: outcome, status class, grant-to-delivery latency and response time', () => {
    expect(attemptIncrements(observation({ sinceRecordedMs: 4_200, latencyMs: 30 }))).toEqual([
      ['outcome:delivered', 1],
      ['status:2xx', 1],
      ['delivery_latency:bucket:5000', 1],
      ['delivery_latency:sum_ms', 4_200],
      ['response_time:bucket:50', 1],
      ['response_time:sum_ms', 30],
    ]);
  });

  it('counts a failed answer without a grant-to-delivery latency, and a failure without answer as status none without response time', () => {
    expect(attemptIncrements(observation({ outcome: 'failed', status: 500, latencyMs: 70_000 }))).toEqual([
      ['outcome:failed', 1],
      ['status:5xx', 1],
      ['response_time:bucket:+Inf', 1],
      ['response_time:sum_ms', 70_000],
    ]);
    expect(attemptIncrements(observation({ outcome: 'failed', status: null, latencyMs: 15_000 }))).toEqual([
      ['outcome:failed', 1],
      ['status:none', 1],
    ]);
  });

  it('counts a skipped attempt by its outcome only: the receiver was not called', () => {
    expect(attemptIncrements(observation({ outcome: 'skipped', status: null, latencyMs: null }))).toEqual([['outcome:skipped', 1]]);
  });

  it('rounds to whole ms and counts a negative delay (clocks of two processes) as none', () => {
    expect(attemptIncrements(observation({ sinceRecordedMs: -40, latencyMs: 99.6 }))).toEqual([
      ['outcome:delivered', 1],
      ['status:2xx', 1],
      ['delivery_latency:bucket:50', 1],
      ['delivery_latency:sum_ms', 0],
      ['response_time:bucket:100', 1],
      ['response_time:sum_ms', 100],
    ]);
  });

  it('reads an empty hash as zeros for every outcome and usual status class', () => {
    const snapshot = parseDeliveryMetrics({});
    expect(snapshot.outcomes).toEqual({ delivered: 0, failed: 0, skipped: 0 });
    expect(snapshot.statusClasses).toEqual({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, none: 0 });
    expect(snapshot.deliveryLatency).toEqual({ perBucket: new Array(11).fill(0), sumMs: 0 });
  });

  it('renders the four families, status classes seen beyond the usual ones included', () => {
    const hash: Record<string, string> = {};
    for (const o of [observation({ sinceRecordedMs: 40 }), observation({ sinceRecordedMs: 7_000 }), observation({ outcome: 'failed', status: 0, latencyMs: 3 })]) {
      for (const [field, by] of attemptIncrements(o)) hash[field] = String(Number(hash[field] ?? 0) + by);
    }
    const text = renderExposition(deliveryMetricFamilies(parseDeliveryMetrics(hash)));
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE ledger_webhook_deliveries_total counter',
        'ledger_webhook_deliveries_total{outcome="delivered"} 2',
        'ledger_webhook_deliveries_total{outcome="failed"} 1',
        'ledger_webhook_deliveries_total{outcome="skipped"} 0',
        '# TYPE ledger_webhook_delivery_responses_total counter',
        'ledger_webhook_delivery_responses_total{status_class="2xx"} 2',
        'ledger_webhook_delivery_responses_total{status_class="none"} 0',
        'ledger_webhook_delivery_responses_total{status_class="other"} 1',
        '# TYPE ledger_webhook_delivery_latency_seconds histogram',
        'ledger_webhook_delivery_latency_seconds_bucket{le="0.05"} 1',
        'ledger_webhook_delivery_latency_seconds_bucket{le="5"} 1',
        'ledger_webhook_delivery_latency_seconds_bucket{le="10"} 2',
        'ledger_webhook_delivery_latency_seconds_bucket{le="+Inf"} 2',
        'ledger_webhook_delivery_latency_seconds_sum 7.04',
        'ledger_webhook_delivery_latency_seconds_count 2',
        '# TYPE ledger_webhook_receiver_response_seconds histogram',
        'ledger_webhook_receiver_response_seconds_count 3',
      ]),
    );
    // The usual classes first, in their order; then the others.
    const classes = lines.filter((l) => l.startsWith('ledger_webhook_delivery_responses_total')).map((l) => /status_class="([^"]+)"/.exec(l)![1]);
    expect(classes).toEqual(['2xx', '3xx', '4xx', '5xx', 'none', 'other']);
  });
});

describe('WebhookDeliveryMetrics against Redis', () => {
  const prefix = `test:delivery-metrics:${randomUUID()}`;
  let redis: Redis;
  const logged: string[] = [];
  const metrics = (client: Redis, timeoutMs?: number) => new WebhookDeliveryMetrics({ redis: client, prefix, timeoutMs, log: (m) => logged.push(m) });

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    logged.splice(0);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('counts concurrent attempts into one hash under the prefix, and reads them back', async () => {
    const recorder = metrics(redis);
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => recorder.record(observation({ sinceRecordedMs: 100 * i, latencyMs: i }))),
      ...Array.from({ length: 5 }, () => recorder.record(observation({ outcome: 'failed', status: 503, latencyMs: 2 }))),
      recorder.record(observation({ outcome: 'skipped', status: null, latencyMs: null })),
    ]);
    expect(await redis.keys(`${prefix}:*`)).toEqual([deliveryMetricsKey(prefix)]);
    expect(recorder.key).toBe(`${prefix}:metrics:webhook-deliveries`);
    const snapshot = await recorder.snapshot();
    expect(snapshot.outcomes).toEqual({ delivered: 20, failed: 5, skipped: 1 });
    expect(snapshot.statusClasses).toMatchObject({ '2xx': 20, '5xx': 5, none: 0 });
    expect(snapshot.deliveryLatency.perBucket.reduce((a, b) => a + b)).toBe(20);
    expect(snapshot.deliveryLatency.sumMs).toBe(100 * ((19 * 20) / 2));
    expect(snapshot.responseTime.perBucket.reduce((a, b) => a + b)).toBe(25);
    expect(logged).toEqual([]);
  });

  it('never rejects when Redis is gone: the failure is logged and the attempt is not counted', async () => {
    const closed = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    await closed.quit();
    await expect(metrics(closed).record(observation({}))).resolves.toBeUndefined();
    expect(logged).toEqual([expect.stringMatching(/^an attempt \(delivered\) was not counted: /)]);
    expect(await redis.exists(deliveryMetricsKey(prefix))).toBe(0);
  });

  it('gives up after its timeout when Redis does not answer, so a delivery is never held up for long', async () => {
    // A server that accepts the connection and never answers: a hung Redis.
    const sockets = new Set<Socket>();
    const silent = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hung = new Redis({ host: '127.0.0.1', port: (silent.address() as AddressInfo).port, maxRetriesPerRequest: null, retryStrategy: () => null });
    hung.on('error', () => undefined);
    try {
      const started = Date.now();
      await expect(metrics(hung, 150).record(observation({ outcome: 'failed', status: null }))).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(logged).toEqual(['an attempt (failed) was not counted: Redis did not answer within 150 ms']);
    } finally {
      hung.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('deliverWebhook reports every recorded attempt to its metrics', () => {
  const tenantId = 'tenant-metrics';
  const protection = { encrypt: async (_t: string, text: string) => text, decrypt: async (_t: string, text: string) => text };
  let dir: string;
  let store: SqliteEventStore;
  let server: Server;
  let url: string;
  const statuses: number[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(statuses.shift() ?? 204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'delivery-metrics-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('after each attempt is recorded: delivered, failed with the status, skipped once the endpoint is disabled', async () => {
    const context = { tenantId, actor: 'test', correlationId: 'c', now: 1_000 };
    const { endpoint } = await registerWebhookEndpoint({ store, protection }, { url, eventTypes: [NOTIFICATION_REQUIRED] }, context);
    const recorded: DeliveryAttemptObservation[] = [];
    let now = 10_000;
    const deps = {
      store,
      protection,
      reportKeys: { keyOf: async () => null },
      egress: { allowPrivateNetworks: true },
      now: () => now,
      metrics: {
        record: async (o: DeliveryAttemptObservation) => {
          // The fact of the attempt is already in the store when it is counted.
          const attempts = (await store.readAll()).filter((e) => e.type === 'WebhookDeliveryAttempted');
          expect(attempts).toHaveLength(recorded.length + 1);
          recorded.push(o);
        },
      },
    };
    const message = { id: 'evt_1', type: NOTIFICATION_REQUIRED, createdAt: 9_000, data: {} } as unknown as WebhookMessage;
    const job = { tenantId, endpointId: endpoint.endpointId, message, eventPosition: 1 };

    statuses.push(500);
    await expect(deliverWebhook(deps, job, 1)).rejects.toBeInstanceOf(DeliveryFailed);
    now = 15_000;
    await expect(deliverWebhook(deps, job, 2)).resolves.toEqual({ outcome: 'delivered', status: 204 });
    await disableWebhookEndpoint(store, endpoint.endpointId, 'deleted', { ...context, now: 16_000 });
    now = 17_000;
    await expect(deliverWebhook(deps, job, 3)).resolves.toEqual({ outcome: 'skipped' });

    expect(recorded).toEqual([
      { outcome: 'failed', status: 500, latencyMs: expect.any(Number), sinceRecordedMs: 1_000 },
      { outcome: 'delivered', status: 204, latencyMs: expect.any(Number), sinceRecordedMs: 6_000 },
      { outcome: 'skipped', status: null, latencyMs: null, sinceRecordedMs: 8_000 },
    ]);
  });
});
