import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { recordHttpRequests } from './http-request-metrics';

describe('HTTP request metrics', () => {
  it('observe each request once, by route template, method and status class; a request no route matches is `unmatched`', async () => {
    const registry = new Registry();
    const app = Fastify();
    recordHttpRequests(app, registry);
    app.get('/v1/things/:thingId', async (request, reply) => reply.code((request.params as { thingId: string }).thingId === 'broken' ? 503 : 200).send({}));
    app.post('/v1/things', { onResponse: async () => undefined }, async (_request, reply) => reply.code(201).send({}));
    await app.ready();
    for (const [method, url] of [
      ['GET', '/v1/things/a'],
      ['GET', '/v1/things/b'],
      ['GET', '/v1/things/broken'],
      ['POST', '/v1/things'],
      ['GET', '/nowhere/123'],
      ['DELETE', '/nowhere/456'],
    ] as const) {
      await app.inject({ method, url });
    }
    const counts = [...(await registry.metrics()).matchAll(/^http_request_duration_seconds_count\{route="([^"]*)",method="([^"]*)",status_class="([^"]*)"\} (\d+)$/gm)]
      .map(([, route, method, statusClass, count]) => [route, method, statusClass, Number(count)])
      .filter(([, , , count]) => count !== 0);
    expect(counts).toEqual(
      expect.arrayContaining([
        ['/v1/things/:thingId', 'GET', '2xx', 2],
        ['/v1/things/:thingId', 'GET', '5xx', 1],
        ['/v1/things', 'POST', '2xx', 1],
        ['unmatched', 'GET', '4xx', 1],
        ['unmatched', 'DELETE', '4xx', 1],
      ]),
    );
    expect(counts).toHaveLength(5);
    await app.close();
  });
});
