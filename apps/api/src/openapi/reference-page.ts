import fastifySwagger, { StaticDocumentSpec } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIObject } from '@nestjs/swagger';

export const REFERENCE_PAGE_PATH = '/docs';

/**
 * The reference page's own policy: Swagger UI's files are all served from
 * here (no CDN, no font or validator service), it runs no inline script, and
 * its "try it" requests go to this origin only. The consent page keeps its
 * stricter policy; neither is loosened for the other.
 */
const REFERENCE_PAGE_POLICY = {
  'default-src': "'none'",
  'script-src': "'self'",
  // The one <style> element Swagger UI 5 renders, by hash rather than 'unsafe-inline'; after an
  // upgrade the browser test names the new hash if its content changed.
  'style-src': "'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  // Swagger UI's style sheet and logo draw icons from data: URIs.
  'img-src': "'self' data:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
};

/**
 * Serves Swagger UI at /docs, reading `document` (the one /openapi.json
 * serves) from /docs/json. The page and its files take no key, like
 * /openapi.json: they join the public routes, limited per client address.
 *
 * Queued, not awaited: awaiting a registration makes Fastify build every
 * route declared so far at once, before Nest installs its error handler at
 * init, and their refusals (a 429 from the rate limit) would then escape as
 * 500s instead of problem+json.
 */
export function serveReferencePage(fastify: FastifyInstance, document: OpenAPIObject): void {
  void fastify.register(async (reference: FastifyInstance) => {
    reference.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    // One JSON document, typed by two models (Nest's and openapi-types') that disagree on optional fields only.
    await reference.register(fastifySwagger, { mode: 'static', specification: { document: document as unknown as StaticDocumentSpec['document'] } });
    await reference.register(fastifySwaggerUi, {
      routePrefix: REFERENCE_PAGE_PATH,
      staticCSP: REFERENCE_PAGE_POLICY,
      theme: { title: `${document.info.title} API reference` },
      uiConfig: {
        // The key typed into "Authorize" lives in the page's memory only, never in the browser's storage.
        persistAuthorization: false,
        displayRequestDuration: true,
        docExpansion: 'list',
      },
    });
  });
}
