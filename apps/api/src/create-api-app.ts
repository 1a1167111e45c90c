import fastifyCookie from '@fastify/cookie';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, createJsonLogger } from '@ledger/http';
import { recordHttpRequests } from '@ledger/metrics';
import { nameServerSpansByRoute, traceLogFields } from '@ledger/tracing';
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
    rateLimit: { perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl, redisPrefix: config.redisPrefix },
  });
  try {
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
