import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startTsProcess } from '../../../libs/queues/src/testing/child-process';
import { freePort } from '../../../test/support/processes';

// The worker as an operator runs it: a separate process, stopped by SIGTERM.
const PREFIX = `test:worker-main:${process.pid}`;
const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const dataDir = mkdtempSync(join(tmpdir(), 'ledger-worker-'));

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts, connects to Redis under its prefix, serves its metrics on LEDGER_WORKER_METRICS_PORT, and exits 0 promptly on SIGTERM', async () => {
  const metricsPort = await freePort();
  const worker = startTsProcess('apps/worker/src/main.ts', { LEDGER_REDIS_PREFIX: PREFIX, LEDGER_DATA_DIR: dataDir, LEDGER_WORKER_METRICS_PORT: String(metricsPort) });
  try {
    // From source through ts-node: slow to start on a loaded 2-core machine.
    await worker.waitForOutput('Worker process ready', 80_000);
    await worker.waitForOutput('Redis connection of the queues is ready');
    // The service's logger (createJsonLogger): JSON lines, never Nest's own text lines. (Configuration warnings precede it, on stderr.)
    const lines = worker.output.split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('[Nest]'))).toEqual([]);
    const logged = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(expect.objectContaining({ level: 30, context: 'Worker', msg: 'Worker process ready' }));
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^ledger_build_info\{version="[^"]+",commit="unknown",node_version="v\d+[^"]*"\} 1$/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    const clients = (await redis.client('LIST')) as string;
    expect(clients).toContain(`name=${PREFIX}:queues `);

    const stopping = Date.now();
    expect(await worker.stop('SIGTERM', 5_000)).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(2_000);
  } finally {
    if (!worker.exited) await worker.stop('SIGKILL');
  }
});
