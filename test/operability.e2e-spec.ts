import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { Redis } from 'ioredis';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';

/** Every route the application really serves, read from Nest's own metadata. */
function servedRoutes(api: ApiApp): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  for (const module of api.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { prototype: Record<string, unknown> } | null;
      if (!controller) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const path = `/${[base, Reflect.getMetadata(PATH_METADATA, handler) as string].filter((p) => p && p !== '/').join('/')}`
          .replace(/\/+/g, '/')
          .replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        routes.push({ method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase(), path });
      }
    }
  }
  return routes;
}

describe('operability', () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  beforeAll(async () => {
    environment = testEnvironment({ LOG_LEVEL: 'info' });
    api = await startApiApp(environment);
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('answers /health/live and /health/ready without a key', async () => {
    expect((await api.http.get('/health/live')).body).toEqual({ status: 'live' });
    const ready = await api.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { eventStore: 'up', redis: 'up', projections: 'up' } });
  });

  it('describes every /v1 operation in OpenAPI 3.1 at /openapi.json', async () => {
    const response = await api.http.get('/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(document.openapi).toBe('3.1.0');
    const v1 = servedRoutes(api).filter((r) => r.path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(0);
    for (const { method, path } of v1) {
      expect({ path, method, documented: Boolean(document.paths[path]?.[method]) }).toEqual({ path, method, documented: true });
      expect(document.paths[path][method].responses.default).toBeDefined();
    }
    expect(Object.keys(document.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
  });

  it('logs JSON lines that carry the request id, echoed in x-request-id', async () => {
    const response = await api.http.get('/health/live').set('x-request-id', 'trace-abc-123');
    expect(response.headers['x-request-id']).toBe('trace-abc-123');
    await waitUntil(() => api.logs.some((l) => l.requestId === 'trace-abc-123' && l.msg === 'request completed'), 2_000);
    const lines = api.logs.filter((l) => l.requestId === 'trace-abc-123');
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));

    const generated = await api.http.get('/health/live').set('x-request-id', 'not a safe id <script>');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports not ready while Redis cannot be reached', async () => {
    // A second app pointed at a port where no Redis listens: the store is up, Redis is not.
    // Workers run elsewhere here: a worker's shutdown waits its bounded drain (30 s) while Redis is away.
    const unreachable = testEnvironment({ REDIS_URL: 'redis://127.0.0.1:1', LEDGER_WORKERS: 'external' });
    const { createApiApp } = await import('../apps/api/src/create-api-app');
    const { loadConfig } = await import('@ledger/platform');
    const app = await createApiApp(loadConfig(unreachable.env, () => undefined), { write: () => true } as unknown as NodeJS.WritableStream);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    try {
      const { default: request } = await import('supertest');
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toMatchObject({ eventStore: 'up', redis: 'down' });
    } finally {
      await app.close();
      await unreachable.dispose();
    }
  });

  it('keeps every Redis key under the instance prefix', async () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${environment.prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
