import { Gauge, Registry } from 'prom-client';
import { startMetricsServer } from './metrics-server';

describe('the metrics server', () => {
  it('answers GET /metrics with the registry in the exposition format, and 404 to anything else', async () => {
    const registry = new Registry();
    new Gauge({ name: 'worker_test_gauge', help: 'a gauge', registers: [registry] }).set(7);
    const server = await startMetricsServer(registry, { port: 0, host: '127.0.0.1' });
    try {
      const { port } = server.address() as { port: number };
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect([metrics.status, metrics.headers.get('content-type')]).toEqual([200, registry.contentType]);
      expect(await metrics.text()).toContain('worker_test_gauge 7');
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
