import { randomUUID } from 'node:crypto';
import { PROJECTIONS } from '../apps/api/src/projections';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { redecConsents } from './support/redec-consents';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 5: queue depth, delivery failures and latency exported as metrics.
// The whole service with its in-process workers, real receivers on loopback,
// and GET /metrics read as a Prometheus scraper reads it.

const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;
const QUEUES = ['consent-certificates', 'webhook-deliveries', 'regulatory-reports', 'scheduled-reports', 'retention-erasure', 'rights-deadlines'];
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'];

interface Family {
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([^ ]+)(?: (-?\d+))?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
// Inf and NaN in any case, as Prometheus reads them (Go's ParseFloat): prom-client writes an empty event-loop window's mean as `Nan`.
const FLOAT = /^[+-]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i;

/**
 * A strict reader of the text exposition format 0.0.4: every line is HELP,
 * TYPE, a sample or empty; a family's HELP and TYPE come once, before its samples;
 * a sample belongs to the family last declared (for a histogram: `_bucket`
 * with an `le`, `_sum`, `_count`); label values are escaped; values are floats.
 */
function parseExposition(text: string): Map<string, Family> {
  expect(text.endsWith('\n')).toBe(true);
  const families = new Map<string, Family>();
  let current: { name: string; family: Family } | undefined;
  for (const line of text.slice(0, -1).split('\n')) {
    const fail = (why: string) => new Error(`${why}: ${JSON.stringify(line)}`);
    // The format ignores empty lines (prom-client puts one between families).
    if (line === '') continue;
    if (line.startsWith('#')) {
      const [, keyword, name, ...rest] = line.split(' ');
      if (keyword !== 'HELP' && keyword !== 'TYPE') throw fail('a comment other than HELP or TYPE');
      if (!NAME.test(name)) throw fail('an invalid metric name');
      const family = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (family.samples.length > 0) throw fail('HELP or TYPE after samples of the family');
      if (keyword === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest.join(' '))) throw fail('an unknown type');
        family.type = rest.join(' ') as Family['type'];
      } else {
        family.help = rest.join(' ');
      }
      if (current?.name !== name && families.has(name)) throw fail('a family declared twice');
      families.set(name, family);
      current = { name, family };
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw fail('not a sample line');
    const [, name, labelText, valueText] = match;
    if (!current) throw fail('a sample before any TYPE');
    const suffixes = current.family.type === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    if (!suffixes.some((suffix) => name === `${current!.name}${suffix}`)) throw fail(`a sample outside its family ${current.name}`);
    const labels: Record<string, string> = {};
    if (labelText !== undefined && labelText !== '') {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const label = LABEL.exec(labelText);
        if (!label) throw fail('malformed labels');
        if (label[1] in labels) throw fail('a label twice');
        labels[label[1]] = label[2].replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
      }
    }
    if (name.endsWith('_bucket') && current.family.type === 'histogram' && labels.le === undefined) throw fail('a bucket without le');
    if (!FLOAT.test(valueText)) throw fail('a value that is not a float');
    const value = /inf$/i.test(valueText) ? (valueText.startsWith('-') ? -Infinity : Infinity) : Number(valueText);
    current.family.samples.push({ name, labels, value });
  }
  return families;
}

/** The value of one series (0 when absent, as for a counter not yet incremented). */
function valueOf(families: Map<string, Family>, family: string, sample: string, labels: Record<string, string> = {}): number {
  const found = families.get(family)?.samples.filter((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found && found.length > 1) throw new Error(`${sample} ${JSON.stringify(labels)} matches ${found.length} series`);
  return found?.[0]?.value ?? 0;
}

/** Buckets in order, checked cumulative and ending in +Inf = _count. */
function histogram(families: Map<string, Family>, name: string): { buckets: Array<[string, number]>; count: number; sum: number } {
  const family = families.get(name);
  expect(family?.type).toBe('histogram');
  const buckets = family!.samples.filter((s) => s.name === `${name}_bucket`).map((s): [string, number] => [s.labels.le, s.value]);
  const bounds = buckets.map(([le]) => (le === '+Inf' ? Infinity : Number(le)));
  expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
  expect(bounds[bounds.length - 1]).toBe(Infinity);
  for (let i = 1; i < buckets.length; i++) expect(buckets[i][1]).toBeGreaterThanOrEqual(buckets[i - 1][1]);
  const count = valueOf(families, name, `${name}_count`);
  expect(buckets[buckets.length - 1][1]).toBe(count);
  return { buckets, count, sum: valueOf(families, name, `${name}_sum`) };
}

describe('GET /metrics', () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  const scrape = async () => {
    const response = await api.http.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return { text: response.text, families: parseExposition(response.text) };
  };

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('is open without a key, outside OpenAPI, and shows every family from the start, at zero', async () => {
    const { families } = await scrape();
    expect([...families.keys()].filter((name) => name.startsWith('ledger_')).sort()).toEqual([
      'ledger_build_info',
      'ledger_metrics_source_up',
      'ledger_projection_lag',
      'ledger_queue_jobs',
      'ledger_rights_requests_open',
      'ledger_rights_requests_overdue',
      'ledger_webhook_deliveries_total',
      'ledger_webhook_delivery_latency_seconds',
      'ledger_webhook_delivery_responses_total',
      'ledger_webhook_receiver_response_seconds',
      'ledger_witness_refusals_total',
    ]);
    for (const family of families.values()) expect(family.help).not.toBe('');
    for (const name of ['ledger_rights_requests_open', 'ledger_rights_requests_overdue']) {
      expect(families.get(name)!.samples.map((sample) => [sample.labels.kind, sample.value])).toEqual(
        ['access', 'rectification', 'suppression', 'opposition', 'portability', 'blocking', 'redec_dispute'].map((kind) => [kind, 0]),
      );
    }
    for (const outcome of ['delivered', 'failed', 'skipped']) {
      expect(families.get('ledger_webhook_deliveries_total')!.samples).toContainEqual({ name: 'ledger_webhook_deliveries_total', labels: { outcome }, value: 0 });
    }
    expect(histogram(families, 'ledger_webhook_delivery_latency_seconds').buckets.map(([le]) => le)).toEqual(['0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60', '+Inf']);
    for (const source of ['webhook_deliveries', 'queues', 'projections', 'rights_requests']) expect(valueOf(families, 'ledger_metrics_source_up', 'ledger_metrics_source_up', { source })).toBe(1);
    const lags = families.get('ledger_projection_lag')!.samples;
    expect(lags.map((s) => s.labels.projection).sort()).toEqual(PROJECTIONS.map((p) => p.name).sort());
    for (const lag of lags) expect(lag.value).toBeGreaterThanOrEqual(0);

    const openapi = await api.http.get('/openapi.json');
    expect(Object.keys(openapi.body.paths)).not.toContain('/metrics');
  });

  it("shows the process's runtime families, ledger_build_info, and each request by route template, method and status class", async () => {
    const unknownId = '00000000-0000-4000-8000-000000000000';
    expect((await api.http.get(`/v1/configurations/${unknownId}`)).status).toBe(401);
    expect((await api.http.get('/health/live')).status).toBe(200);
    expect((await api.http.get(`/no/such/route/${unknownId}`)).status).toBe(404);
    const { text, families } = await scrape();
    for (const family of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds']) {
      expect(families.get(family)?.help).toBeTruthy();
    }
    expect(families.get('ledger_build_info')!.samples).toEqual([
      { name: 'ledger_build_info', labels: { version: (await import('../package.json')).version, commit: 'unknown', node_version: process.version }, value: 1 },
    ]);
    expect(families.get('http_request_duration_seconds')?.type).toBe('histogram');
    const count = (labels: Record<string, string>) => valueOf(families, 'http_request_duration_seconds', 'http_request_duration_seconds_count', labels);
    expect(count({ route: '/v1/configurations/:configurationId', method: 'GET', status_class: '4xx' })).toBe(1);
    expect(count({ route: '/health/live', method: 'GET', status_class: '2xx' })).toBe(1);
    expect(count({ route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(1);
    // The route template, never the path a client sent.
    expect(text).not.toContain(unknownId);
  });

  it('counts one delivery, one failure then delivery, with the grant-to-delivery latency, the queues and nothing that names a tenant', async () => {
    const steady = await startWebhookReceiver(() => ({ status: 204 }));
    const flaky = await startWebhookReceiver((_request, index) => ({ status: index === 0 ? 500 : 204 }));
    try {
      const before = (await scrape()).families;
      const tenants = await Promise.all([api.tenantKey([...SCOPES]), api.tenantKey([...SCOPES])]);
      const registered = await Promise.all(
        [steady, flaky].map(async (receiver, i) => {
          const response = await api.http
            .post('/v1/webhook-endpoints')
            .set({ Authorization: `Bearer ${tenants[i].apiKey}` })
            .send({ url: receiver.url, eventTypes: ['redec.notification.required'] });
          expect(response.status).toBe(201);
          return response.body as { endpointId: string; secret: string };
        }),
      );
      const granted = await Promise.all(tenants.map((tenant) => redecConsents(api, tenant.apiKey).grant()));

      // The 500 is retried on the schedule: about 5 s later.
      await steady.waitForCount(1, 15_000);
      await flaky.waitForCount(2, 25_000);
      const delivered = () => valueOf(before, 'ledger_webhook_deliveries_total', 'ledger_webhook_deliveries_total', { outcome: 'delivered' }) + 2;
      await waitUntil(async () => valueOf((await scrape()).families, 'ledger_webhook_deliveries_total', 'ledger_webhook_deliveries_total', { outcome: 'delivered' }) >= delivered(), 5_000);
      await waitUntil(async () => valueOf((await scrape()).families, 'ledger_queue_jobs', 'ledger_queue_jobs', { queue: 'webhook-deliveries', state: 'completed' }) === 2, 5_000);
      // Nothing more is counted afterwards.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(steady.received).toHaveLength(1);
      expect(flaky.received).toHaveLength(2);
      const { text, families: after } = await scrape();

      const increase = (family: string, sample: string, labels: Record<string, string> = {}) => valueOf(after, family, sample, labels) - valueOf(before, family, sample, labels);
      const attempts = (outcome: string) => increase('ledger_webhook_deliveries_total', 'ledger_webhook_deliveries_total', { outcome });
      const responses = (status_class: string) => increase('ledger_webhook_delivery_responses_total', 'ledger_webhook_delivery_responses_total', { status_class });
      expect({ delivered: attempts('delivered'), failed: attempts('failed'), skipped: attempts('skipped') }).toEqual({ delivered: 2, failed: 1, skipped: 0 });
      expect({ '2xx': responses('2xx'), '4xx': responses('4xx'), '5xx': responses('5xx'), none: responses('none') }).toEqual({ '2xx': 2, '4xx': 0, '5xx': 1, none: 0 });

      const latency = histogram(after, 'ledger_webhook_delivery_latency_seconds');
      const latencyBefore = histogram(before, 'ledger_webhook_delivery_latency_seconds');
      expect(latency.count - latencyBefore.count).toBe(attempts('delivered'));
      // The retried delivery came at least the schedule's first wait (5 s, -20 %) after the grant was recorded.
      const within = (le: string) => latency.buckets.find(([bound]) => bound === le)![1] - latencyBefore.buckets.find(([bound]) => bound === le)![1];
      expect(within('2.5')).toBeLessThanOrEqual(1);
      expect(within('60')).toBe(2);
      expect(latency.sum - latencyBefore.sum).toBeGreaterThanOrEqual(4);
      expect(latency.sum - latencyBefore.sum).toBeLessThan(60);
      const responseTime = histogram(after, 'ledger_webhook_receiver_response_seconds');
      expect(responseTime.count - histogram(before, 'ledger_webhook_receiver_response_seconds').count).toBe(3);

      for (const queue of QUEUES) {
        for (const state of QUEUE_STATES) {
          const series = after.get('ledger_queue_jobs')!.samples.filter((s) => s.labels.queue === queue && s.labels.state === state);
          expect({ queue, state, series: series.length }).toEqual({ queue, state, series: 1 });
          expect(Number.isInteger(series[0].value) && series[0].value >= 0).toBe(true);
        }
      }
      expect(after.get('ledger_queue_jobs')!.samples).toHaveLength(QUEUES.length * QUEUE_STATES.length);
      expect(valueOf(after, 'ledger_queue_jobs', 'ledger_queue_jobs', { queue: 'webhook-deliveries', state: 'failed' })).toBe(0);

      const secrets = [
        ...tenants.flatMap((t) => [t.tenantId, t.apiKey, t.keyId]),
        ...registered.flatMap((r) => [r.endpointId, r.secret, r.secret.replace(/^whsec_/, '')]),
        ...granted.flatMap((g) => [g.redecConsentId, g.internalConsentCode, g.consentActionId, g.customerId]),
        steady.url,
        flaky.url,
        '127.0.0.1',
        environment.prefix,
      ];
      for (const secret of secrets) expect({ secret, shown: text.includes(secret) }).toEqual({ secret, shown: false });
    } finally {
      await Promise.all([steady.close(), flaky.close()]);
    }
  }, 45_000);

  it("counts every tenant's open rights requests and the overdue ones among them, by kind, naming no tenant", async () => {
    const tenants = await Promise.all([api.tenantKey(['consent:write']), api.tenantKey(['consent:write'])]);
    const receive = async (apiKey: string, kind: string, receivedAt: number) => {
      const answer = await api.http
        .post('/v1/rights-requests')
        .set('Authorization', `Bearer ${apiKey}`)
        .set('Idempotency-Key', randomUUID())
        .send({ userReference: 'cliente-1', identifiers: [{ system: 'cl-sii', type: 'rut', value: '12.345.678-5' }], kind, receivedAt, channel: 'web', sourceSystem: 'crm', sourceReference: randomUUID() });
      expect(answer.status).toBe(201);
      return answer.body.rightsRequestId as string;
    };
    const longAgo = Date.now() - 45 * 86_400_000;
    await receive(tenants[0].apiKey, 'access', longAgo);
    await receive(tenants[1].apiKey, 'access', longAgo);
    await receive(tenants[1].apiKey, 'blocking', Date.now() - 60_000);
    const answered = await receive(tenants[0].apiKey, 'opposition', longAgo);
    const resolution = { to: 'resolved', occurredAt: Date.now() - 60_000, outcome: 'approved', response: { channel: 'email', sentAt: Date.now() - 60_000, contentSha256: 'a'.repeat(64) } };
    expect((await api.http.post(`/v1/rights-requests/${answered}/transitions`).set('Authorization', `Bearer ${tenants[0].apiKey}`).set('Idempotency-Key', randomUUID()).send(resolution)).status).toBe(200);

    const { text, families } = await scrape();
    expect(valueOf(families, 'ledger_rights_requests_open', 'ledger_rights_requests_open', { kind: 'access' })).toBe(2);
    expect(valueOf(families, 'ledger_rights_requests_open', 'ledger_rights_requests_open', { kind: 'blocking' })).toBe(1);
    expect(valueOf(families, 'ledger_rights_requests_open', 'ledger_rights_requests_open', { kind: 'opposition' })).toBe(0);
    expect(valueOf(families, 'ledger_rights_requests_overdue', 'ledger_rights_requests_overdue', { kind: 'access' })).toBe(2);
    expect(valueOf(families, 'ledger_rights_requests_overdue', 'ledger_rights_requests_overdue', { kind: 'blocking' })).toBe(0);
    for (const { tenantId } of tenants) expect(text).not.toContain(tenantId);
  });
});
