import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannon, CannonResult, spawnService, waitReady } from './http.bench';
import { generateInChildProcess } from './projection-rebuild.bench';

/** The service while its read model catches up with a generated ledger, beside the same service once it has. */
export interface CatchUpResult {
  ledgerEvents: number;
  connections: number;
  seconds: number;
  /** From the service listening to /health/ready answering 200. */
  catchUpSeconds: number;
  /** Whether the catch-up outlasted the window measured during it (else the window also holds requests after it). */
  windowWithinCatchUp: boolean;
  during: LoadFigures;
  after: LoadFigures;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const CONNECTIONS = 16;

/**
 * `npm run bench -- catch-up`: a ledger of BENCH_CATCH_UP_EVENTS events
 * (100,000) is generated, the built service is started on it with an empty
 * Redis prefix, and `GET /health/live` (no key, no I/O: what any route pays
 * before its own work) is loaded for BENCH_CATCH_UP_SECONDS (10) as soon as
 * the service listens, while the projections catch up, then again for as
 * long once it is ready: the baseline, in the same run.
 */
export async function runCatchUpBench(log: (line: string) => void): Promise<CatchUpResult> {
  const ledgerEvents = Number(process.env.BENCH_CATCH_UP_EVENTS ?? 100_000);
  const seconds = Number(process.env.BENCH_CATCH_UP_SECONDS ?? 10);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-catch-up-'));
  try {
    log(`catch-up: generating a ledger of ${ledgerEvents.toLocaleString('en-US')} events`);
    await generateInChildProcess(join(dataDir, 'ledger.sqlite'), ledgerEvents, log, { label: 'catch-up' });
    // The generator's master key: the keyring it wrote opens under it (generate-ledger.ts).
    const masterKey = createHash('sha256').update('bench-ledger-master-key:1').digest('hex');
    const service = await spawnService({ redisUrl, dataDir, masterKey });
    try {
      const listening = performance.now();
      const ready = waitReady(service.baseUrl, service.process, 60 * 60_000).then(() => performance.now());
      log(`catch-up: GET /health/live at ${CONNECTIONS} connections for ${seconds} s while the read model catches up`);
      const during = await load(service.baseUrl, seconds);
      const windowEnded = performance.now();
      const readyAt = await ready;
      log(`catch-up: ready after ${((readyAt - listening) / 1000).toFixed(1)} s; the same load again`);
      const after = await load(service.baseUrl, seconds);
      return {
        ledgerEvents,
        connections: CONNECTIONS,
        seconds,
        catchUpSeconds: (readyAt - listening) / 1000,
        windowWithinCatchUp: readyAt >= windowEnded,
        during,
        after,
      };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function load(baseUrl: string, seconds: number): Promise<LoadFigures> {
  const result: CannonResult = await autocannon({ url: baseUrl, connections: CONNECTIONS, duration: seconds, requests: [{ method: 'GET', path: '/health/live' }] });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`catch-up: ${result.errors} errors and ${result.non2xx} answers other than 2xx`);
  return { requestsPerSecond: result.requests.total / result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99, maxMs: result.latency.max };
}
