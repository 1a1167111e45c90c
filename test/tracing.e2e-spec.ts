import { IncomingMessage, Server, createServer } from 'node:http';
import request from 'supertest';
import { waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, WorkerProcess, ensureBuilt, freePort, runCli, spawnApi, spawnWorker, stopProcesses } from './support/processes';
import { redecConsents } from './support/redec-consents';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 17: with OTEL_EXPORTER_OTLP_ENDPOINT set, the service sends its traces
// as OTLP over HTTP. The receiver is a small HTTP server here; the services are
// the built API and worker as processes (tracing hooks into Node's http module
// when the process starts, before Fastify is loaded), the API leaving the
// queues' jobs to the worker, so a grant's webhook crosses from one to the other.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}
interface Received {
  serviceName: string | undefined;
  span: OtlpSpan;
}

// OTLP's span kinds.
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const GRANT_ROUTE = '/v1/redec/consent-interactions/:interactionId/grant';
const CONSENT_ROUTE = '/v1/redec/consents/:redecConsentId';

/** An OTLP/HTTP trace receiver: keeps every span POSTed to /v1/traces (JSON, as the HTTP exporter sends it). */
async function startOtlpReceiver(): Promise<{ url: string; spans: Received[]; contentTypes: Set<string>; close: () => Promise<void> }> {
  const spans: Received[] = [];
  const contentTypes = new Set<string>();
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method === 'POST' && req.url === '/v1/traces') {
      contentTypes.add(req.headers['content-type'] ?? '');
      const payload = JSON.parse(body) as { resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resourceSpans of payload.resourceSpans) {
        const serviceName = resourceSpans.resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ serviceName, span });
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, spans, contentTypes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('traces', () => {
  let environment: TestEnvironment;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let webhooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;
  let apiKey: string;
  let granted: { redecConsentId: string };
  let grantSpan: Received;

  const traceOf = (traceId: string) => new Map(receiver.spans.filter((r) => r.span.traceId === traceId).map((r) => [r.span.spanId, r]));
  const descendsFrom = (span: OtlpSpan, ancestorId: string, spans: Map<string, Received>): boolean => {
    for (let parent = span.parentSpanId; parent; parent = spans.get(parent)?.span.parentSpanId) if (parent === ancestorId) return true;
    return false;
  };
  /** The spans of the grant's trace beneath its request's span that `accept` picks, once there is one (spans are exported as they end, a batch at a time). */
  const beneathGrant = async (accept: (r: Received) => boolean): Promise<Received[]> => {
    let found: Received[] = [];
    await waitUntil(() => {
      const spans = traceOf(grantSpan.span.traceId);
      found = [...spans.values()].filter((r) => accept(r) && descendsFrom(r.span, grantSpan.span.spanId, spans));
      return found.length > 0;
    }, 30_000);
    return found;
  };
  const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value;

  beforeAll(async () => {
    ensureBuilt();
    environment = testEnvironment({ LEDGER_WORKERS: 'external' });
    receiver = await startOtlpReceiver();
    webhooks = await startWebhookReceiver(() => ({ status: 204 }));
    // Spans are sent every 200 ms rather than every 5 s, so the test need not wait.
    // At info level, the level of the request's log line.
    const traced = { ...environment.env, LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
    [api, worker] = await Promise.all([spawnApi(traced, 90_000, { built: true }), spawnWorker(traced, 90_000, { built: true })]);
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco Trazado'], environment.env);
    const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:identity-assert'], environment.env);
    apiKey = key.json.apiKey;
    const endpoint = await request(api.baseUrl).post('/v1/webhook-endpoints').set('Authorization', `Bearer ${apiKey}`).send({ url: webhooks.url, eventTypes: ['redec.notification.required'] });
    expect(endpoint.status).toBe(201);
    granted = await redecConsents({ http: request(api.baseUrl) }, apiKey).grant();
    await waitUntil(() => receiver.spans.some((r) => r.span.name === `POST ${GRANT_ROUTE}`), 30_000);
    grantSpan = receiver.spans.find((r) => r.span.name === `POST ${GRANT_ROUTE}`)!;
  }, 180_000);
  afterAll(async () => {
    await stopProcesses([api, worker]);
    await webhooks?.close();
    await receiver?.close();
    await environment?.dispose();
  });

  it("a grant sends one trace from the HTTP request, named by its route template, down to the event store reads and appends; its log line names the trace; a read's trace holds its Redis commands", async () => {
    expect(grantSpan.serviceName).toBe('consent-ledger-api');
    expect(grantSpan.span.kind).toBe(SERVER);
    expect(grantSpan.span.attributes).toContainEqual({ key: 'http.route', value: { stringValue: GRANT_ROUTE } });
    expect([...receiver.contentTypes]).toEqual(['application/json']);

    await beneathGrant((r) => r.span.name === 'event-store append');
    const names = new Set((await beneathGrant((r) => r.span.name.startsWith('event-store '))).map((r) => r.span.name));
    expect(names).toContain('event-store append');
    expect(names).toContain('event-store readStream');
    const append = (await beneathGrant((r) => r.span.name === 'event-store append'))[0].span;
    // The stream's category, never its id: ids name tenants, customers and consents.
    expect(append.attributes).toContainEqual({ key: 'ledger.stream.category', value: { stringValue: expect.stringMatching(/^[a-z]+$/) } });

    // A read comes from the read model: its request's trace holds the Redis commands.
    expect((await request(api!.baseUrl).get(`/v1/redec/consents/${granted.redecConsentId}`).set('Authorization', `Bearer ${apiKey}`)).status).toBe(200);
    await waitUntil(() => receiver.spans.some((r) => r.span.name === `GET ${CONSENT_ROUTE}`), 30_000);
    const readSpan = receiver.spans.find((r) => r.span.name === `GET ${CONSENT_ROUTE}`)!.span;
    let reads: Received[] = [];
    await waitUntil(() => {
      const spans = traceOf(readSpan.traceId);
      reads = [...spans.values()].filter((r) => attribute(r.span, 'db.system.name')?.stringValue === 'redis' && descendsFrom(r.span, readSpan.spanId, spans));
      return reads.length > 0;
    }, 30_000);
    expect(reads.map((r) => r.serviceName)).toEqual(reads.map(() => 'consent-ledger-api'));
    // Its path names the consent: the span says the route template instead.
    expect(attribute(readSpan, 'http.route')).toEqual({ stringValue: CONSENT_ROUTE });
    expect(attribute(readSpan, 'url.path')).toEqual({ stringValue: 'REDACTED' });
    // A query string too (checked with the others below: no span holds the consent's id).
    expect((await request(api!.baseUrl).get('/health/live').query({ consent: granted.redecConsentId })).status).toBe(200);
    await waitUntil(() => receiver.spans.some((r) => r.span.name === 'GET /health/live' && attribute(r.span, 'url.query')?.stringValue === 'REDACTED'), 30_000);

    // The request's log line names its trace.
    const requestLines = api!.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(requestLines).toContainEqual(
      expect.objectContaining({ msg: 'request completed', trace_id: grantSpan.span.traceId, span_id: grantSpan.span.spanId, req: expect.objectContaining({ method: 'POST' }) }),
    );
  }, 60_000);

  it("the grant's webhook job continues its trace: added by the API's dispatcher beneath the append (producer, then its Redis script), processed by the worker process (consumer), whose POST to the endpoint and Redis commands are beneath it", async () => {
    await webhooks.waitForCount(1, 30_000);
    // The grant asks for its certificate too: a job of its own, in the same trace.
    const [producer] = await beneathGrant((r) => r.span.kind === PRODUCER && attribute(r.span, 'messaging.destination.name')?.stringValue === 'webhook-deliveries');
    expect(producer.serviceName).toBe('consent-ledger-api');
    // The dispatcher follows the store after the request has been answered: the job joins the trace beneath the append that recorded the grant.
    const appends = await beneathGrant((r) => r.span.name === 'event-store append');
    expect(appends.map((r) => r.span.spanId)).toContain(producer.span.parentSpanId);
    expect(attribute(producer.span, 'messaging.system')).toEqual({ stringValue: 'bullmq' });
    expect(attribute(producer.span, 'messaging.operation.type')).toEqual({ stringValue: 'send' });
    expect(attribute(producer.span, 'messaging.message.id')?.stringValue).toMatch(/^webhook-/);

    // Adding the job is BullMQ's script on Redis, beneath the producer span; every Redis span is named as the database conventions say, without its keys.
    const adding = await beneathGrant((r) => r.span.parentSpanId === producer.span.spanId && attribute(r.span, 'db.system.name')?.stringValue === 'redis');
    expect(adding.map((r) => [r.serviceName, r.span.kind, r.span.name])).toContainEqual(['consent-ledger-api', CLIENT, 'EVALSHA']);
    for (const { span } of await beneathGrant((r) => attribute(r.span, 'db.system.name') !== undefined)) {
      expect(span.kind).toBe(CLIENT);
      expect(span.name).toMatch(/^[A-Z]+$/);
      expect(attribute(span, 'db.operation.name')).toEqual({ stringValue: span.name });
      expect(attribute(span, 'db.namespace')).toEqual({ stringValue: '0' });
      expect(attribute(span, 'server.address')).toEqual({ stringValue: '127.0.0.1' });
      expect(attribute(span, 'db.query.text')).toBeUndefined();
    }

    const [consumer] = await beneathGrant((r) => r.span.kind === CONSUMER && r.span.parentSpanId === producer.span.spanId);
    expect(consumer.serviceName).toBe('consent-ledger-worker');
    expect(consumer.span.name).toBe('process webhook-deliveries');
    expect(attribute(consumer.span, 'messaging.system')).toEqual({ stringValue: 'bullmq' });
    expect(attribute(consumer.span, 'messaging.destination.name')).toEqual({ stringValue: 'webhook-deliveries' });
    expect(attribute(consumer.span, 'messaging.operation.type')).toEqual({ stringValue: 'process' });
    expect(attribute(consumer.span, 'messaging.message.id')).toEqual(attribute(producer.span, 'messaging.message.id'));

    // Beneath the job, in the worker: the delivery's POST and its Redis commands.
    const inWorker = (accept: (span: OtlpSpan) => boolean) =>
      beneathGrant((r) => r.serviceName === 'consent-ledger-worker' && accept(r.span) && descendsFrom(r.span, consumer.span.spanId, traceOf(grantSpan.span.traceId)));
    expect(await inWorker((span) => span.kind === CLIENT && attribute(span, 'http.request.method')?.stringValue === 'POST')).not.toHaveLength(0);
    expect(await inWorker((span) => attribute(span, 'db.system.name')?.stringValue === 'redis')).not.toHaveLength(0);
  }, 60_000);

  it("carries no consent id, no API key and no webhook endpoint's path", () => {
    expect(JSON.stringify(receiver.spans)).not.toContain(granted.redecConsentId);
    expect(JSON.stringify(receiver.spans)).not.toContain(apiKey);
    expect(JSON.stringify(receiver.spans)).not.toContain(new URL(webhooks.url).pathname);
  });
});
