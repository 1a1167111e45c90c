import { applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { extendRouteConfig } from '../route-config';

/** How a @NoStore() operation is marked for the OpenAPI document, which declares the header on each of its answers and drops the mark. */
export const NO_STORE_EXTENSION = 'x-ledger-no-store';

/**
 * Marks a route whose answers carry evidence, artifacts, report content,
 * exports or audit bundles: every answer of it, errors included, is sent
 * with `Cache-Control: no-store`, so that no proxy, gateway or client cache
 * between the service and the bank keeps a copy of what the service itself
 * protects (docs/security.md, "What is shown and downloaded").
 */
export const NoStore = (): MethodDecorator => applyDecorators(extendRouteConfig({ noStore: true }), ApiExtension(NO_STORE_EXTENSION, true));

const sendNoStore: onRequestHookHandler = (_request, reply, done) => {
  void reply.header('cache-control', 'no-store');
  done();
};

/** Installs the header on the routes marked @NoStore() as they are registered, so no other route pays for a check. */
export function applyNoStore(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (route.config?.noStore) route.onRequest = [sendNoStore, ...(route.onRequest === undefined ? [] : [route.onRequest].flat())];
  });
}
