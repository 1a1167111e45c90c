import fastifyCookie from '@fastify/cookie';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, createJsonLogger } from '@ledger/http';
import { recordHttpRequests } from '@ledger/metrics';
import { nameServerSpansByRoute, traceLogFields } from '@ledger/tracing';
import { eventStoreKind } from '@ledger/event-store';
import { LedgerConfig } from '@ledger/platform';
import { AppModule } from './app.module';
import { METRICS_REGISTRY } from './metrics/metrics-registry.provider';
import { buildOpenApiDocument } from './openapi/openapi';
import { serveReferencePage } from './openapi/reference-page';

/**
 * The whole service as one Nest application on the production HTTP stack;
 * apps/api's main and the end-to-end tests both build it here, so tests
 * exercise exactly what runs.
 */
export async function createApiApp(config: LedgerConfig, logDestination?: NodeJS.WritableStream): Promise<NestFastifyApplication> {
  const logger = createJsonLogger({ level: config.logLevel, destination: logDestination, mixin: traceLogFields() });
  const app = await createHttpApp(AppModule.forRoot(config), logger, {
    rateLimit: { perMinute: config.rateLimitPerMinute, redis: config.redis, redisPrefix: config.redisPrefix },
    bodiesInFlight: { maxBytes: config.maxBodyBytesInFlight },
  });
  try {
    countRoutes(app);
    // Before the routes are registered (at init): each route gets its own timing hook.
    recordHttpRequests(app.getHttpAdapter().getInstance(), app.get(METRICS_REGISTRY));
    nameServerSpansByRoute(app.getHttpAdapter().getInstance());
    // The consent page holds its token in a cookie once the URL's token is exchanged (docs/decisions/0025).
    await app.register(fastifyCookie);
    const document = buildOpenApiDocument(app, config.publicUrl);
    const fastify = app.getHttpAdapter().getInstance();
    fastify.get('/openapi.json', { config: { public: true } }, (_request, reply) => reply.send(document));
    serveReferencePage(fastify, document);
  } catch (error) {
    // The modules already hold connections (Redis, the store); a failed start must not leave them open.
    await app.close();
    throw error;
  }
  // Exit 0 after the shutdown hooks (HTTP closed, workers drained, projections stopped, store closed).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  return app;
}

/**
 * `npm start`: the service on HOST:PORT. Fastify's line saying it listens is
 * the start-up's one line at info (Nest's narration of modules and routes is
 * at debug): where, how many routes, which event store, where the queue
 * workers run. Fastify writes it once per address it listens on, so HOST
 * 0.0.0.0 gives one for each of the machine's IPv4 addresses.
 */
export async function listenApiApp(app: NestFastifyApplication, config: LedgerConfig): Promise<void> {
  const facts = () => `${routesServed.get(app)?.() ?? 0} routes, event store ${eventStoreKind(config)}, workers ${config.inProcessWorkers ? 'in-process' : 'external'}`;
  await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `listening on ${address}, ${facts()}` });
}

/** Each app's routes, counted by createApiApp as they are registered (Fastify lists them to no one), for its start-up line. */
const routesServed = new WeakMap<NestFastifyApplication, () => number>();

function countRoutes(app: NestFastifyApplication): void {
  let routes = 0;
  // HEAD routes are Fastify's copies of the GET ones.
  app.getHttpAdapter().getInstance().addHook('onRoute', (route) => {
    routes += [route.method].flat().filter((method) => method !== 'HEAD').length;
  });
  routesServed.set(app, () => routes);
}
