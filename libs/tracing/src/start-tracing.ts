import type { IncomingMessage, RequestOptions } from 'node:http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { traceRedisCommands } from './redis-spans';

let provider: NodeTracerProvider | undefined;
/** The semantic conventions' word for a value left out. */
const REDACTED = 'REDACTED';

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, and OTEL_SDK_DISABLED is not
 * `true`: spans are batched and sent as OTLP over HTTP (JSON); the other
 * standard OTEL_* variables (headers, timeouts, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*) apply as the SDK reads them.
 * Unset, nothing is loaded into the request path: no instrumentation, no
 * wrapped store, no subscriber to ioredis's tracing channels, no BullMQ
 * telemetry. Returns whether tracing started.
 *
 * Must run before anything requires `http`'s server (Fastify), which is why
 * each process's tracing.ts is its main's first import.
 */
export function startTracing(serviceName: string, version: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || provider) return provider !== undefined;
  provider = new NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over the names given here.
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': serviceName, 'service.version': version }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  // A request's path and query name consents, customers and identifiers, and traces leave the service:
  // server spans carry the route template (`http.route`, route-span-names.ts) instead of either.
  const startIncomingSpanHook = (request: IncomingMessage) => ({ 'url.path': REDACTED, ...(request.url?.includes('?') ? { 'url.query': REDACTED } : {}) });
  // A webhook endpoint's path and query are the bank's, and may hold its own token: client spans keep where a call went, not the rest.
  const startOutgoingSpanHook = (options: RequestOptions) => ({ 'url.full': `${options.protocol ?? 'http:'}//${options.hostname ?? options.host}${options.port ? `:${options.port}` : ''}/${REDACTED}` });
  registerInstrumentations({ tracerProvider: provider, instrumentations: [new HttpInstrumentation({ startIncomingSpanHook, startOutgoingSpanHook })] });
  traceRedisCommands();
  return true;
}

export function tracingStarted(): boolean {
  return provider !== undefined;
}

/** Sends the spans still batched, then stops: at shutdown, so the last requests' traces are not lost with the process. */
export async function stopTracing(): Promise<void> {
  await provider?.shutdown();
}
