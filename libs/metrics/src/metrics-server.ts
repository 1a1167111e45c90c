import { Server, createServer } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * GET /metrics of a process without an HTTP API (apps/worker), on a port of
 * its own; every other request is 404. Resolves once listening.
 */
export async function startMetricsServer(registry: Registry, { port, host }: { port: number; host: string }): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
