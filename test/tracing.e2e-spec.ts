import { IncomingMessage, Server, createServer } from 'node:http';
import request from 'supertest';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, ensureBuilt, freePort, runCli, spawnApi } from './support/processes';
import { redecConsents } from './support/redec-consents';

// Issue 17: with OTEL_EXPORTER_OTLP_ENDPOINT set, the service sends its traces
// as OTLP over HTTP. The receiver is a small HTTP server here; the service is
// the built API as a process (tracing hooks into Node's http module when the
// process starts, before Fastify is loaded).

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

const SERVER = 2;
const GRANT_ROUTE = '/v1/redec/consent-interactions/:interactionId/grant';

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
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    ensureBuilt();
    environment = testEnvironment();
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    await receiver?.close();
    await environment?.dispose();
  });

  it('a grant sends one trace from the HTTP request, named by its route template, down to the event store reads and appends; its log line names the trace', async () => {
    // Spans are sent every 200 ms rather than every 5 s, so the test need not wait.
    // At info level, the level of the request's log line.
    api = await spawnApi({ ...environment.env, LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' }, 90_000, { built: true });
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco Trazado'], environment.env);
    const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:identity-assert'], environment.env);
    const granted = await redecConsents({ http: request(api.baseUrl) }, key.json.apiKey).grant();

    const deadline = Date.now() + 30_000;
    let grantSpan: Received | undefined;
    while (!(grantSpan = receiver.spans.find((r) => r.span.name === `POST ${GRANT_ROUTE}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(grantSpan).toBeDefined();
    expect(grantSpan!.serviceName).toBe('consent-ledger-api');
    expect(grantSpan!.span.kind).toBe(SERVER);
    expect(grantSpan!.span.attributes).toContainEqual({ key: 'http.route', value: { stringValue: GRANT_ROUTE } });
    expect([...receiver.contentTypes]).toEqual(['application/json']);

    // The store's spans of that request are exported once they end, which may be a batch after the request's.
    const bySpanId = () => new Map(receiver.spans.filter((r) => r.span.traceId === grantSpan!.span.traceId).map((r) => [r.span.spanId, r.span]));
    const descendsFromGrant = (span: OtlpSpan, spans: Map<string, OtlpSpan>): boolean => {
      for (let parent = span.parentSpanId; parent; parent = spans.get(parent)?.parentSpanId) if (parent === grantSpan!.span.spanId) return true;
      return false;
    };
    const storeSpans = () => {
      const spans = bySpanId();
      return [...spans.values()].filter((span) => span.name.startsWith('event-store ') && descendsFromGrant(span, spans));
    };
    while (!storeSpans().some((span) => span.name === 'event-store append') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const names = new Set(storeSpans().map((span) => span.name));
    expect(names).toContain('event-store append');
    expect(names).toContain('event-store readStream');
    const append = storeSpans().find((span) => span.name === 'event-store append')!;
    // The stream's category, never its id: ids name tenants, customers and consents.
    expect(append.attributes).toContainEqual({ key: 'ledger.stream.category', value: { stringValue: expect.stringMatching(/^[a-z]+$/) } });
    // The request's log line names its trace.
    const requestLines = api.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(requestLines).toContainEqual(
      expect.objectContaining({ msg: 'request completed', trace_id: grantSpan!.span.traceId, span_id: grantSpan!.span.spanId, req: expect.objectContaining({ method: 'POST' }) }),
    );
    expect(JSON.stringify(receiver.spans)).not.toContain(granted.redecConsentId);
    expect(JSON.stringify(receiver.spans)).not.toContain(key.json.apiKey);
  }, 180_000);
});
