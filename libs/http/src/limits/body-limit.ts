import type { FastifyInstance } from 'fastify';
import { extendRouteConfig } from '../route-config';

const KiB = 1024;

/** What a route reads unless it says otherwise: a request of the API is a few kilobytes of JSON, but for evidence uploads and configuration texts. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * KiB;

/** Evidence uploads (audio, scanned documents) arrive base64 inside JSON. */
export const EVIDENCE_BODY_LIMIT_BYTES = 16 * KiB * KiB;

/**
 * The largest body the route reads; a larger one is refused with 413
 * PAYLOAD_TOO_LARGE, before it is read when its Content-Length says so.
 * Without it a route reads at most DEFAULT_BODY_LIMIT_BYTES.
 */
export const BodyLimit = (bytes: number): MethodDecorator => extendRouteConfig({ bodyLimit: bytes });

/**
 * Fastify takes a route's body limit from its options, which Nest does not
 * let a controller set: this copies @BodyLimit() from the route's config
 * into them as each route is registered.
 */
export function applyBodyLimits(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const bodyLimit = route.config?.bodyLimit;
    if (bodyLimit !== undefined) route.bodyLimit = bodyLimit;
  });
}
