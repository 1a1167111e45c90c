import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { EventStore, PostgresEventStore, SQLITE_FILE_NAME, SqliteEventStore } from '@ledger/event-store';
import { createDatabase, createRedis, databaseUrlFor, deleteKeysUnder, dropDatabase } from '@ledger/platform';
import { POSTGRES_SERVER, SIXTY_FOUR_WRITERS, StoreWithStats, benchDatabaseName, measureStore } from './event-store.bench';
import { consentCertificatesQueue } from '../apps/api/src/redec/artifacts/consent-certificates.queue';
import { regulatoryReportsQueue } from '../apps/api/src/redec/reports/reports.queue';
import { webhookDeliveriesQueue } from '../apps/api/src/webhooks/webhook-deliveries.queue';
import { customerResolution, redecConfiguration } from './fixtures';
import { generatedLedgerMasterKey } from './generate-ledger';
import { median } from './median';
import { Route, authHeaders, autocannon, issueKey, routesOf, rssMb, serviceCall, spawnService, waitReady } from './http.bench';
import { copyToPostgres, generateInChildProcess, runProjectionRebuildBench, usedMemory } from './projection-rebuild.bench';

/**
 * Issue 35: what the service costs as its ledger grows. For each store and
 * each ledger size (a generated ledger; 0 is an empty store), the same
 * measurements, so each figure at N events stands beside the same figure at
 * 0 events in the same run:
 *
 * - the time from start to ready on an empty Redis (the read model built from
 *   the whole ledger) and on the model the first start left;
 * - the service's RSS after start, after that catch-up and after the load;
 * - Redis memory (used_memory's growth) of the read model, per event, per
 *   consent and per access decision;
 * - p50/p99 of the routes whose cost could grow with the ledger, at a fixed
 *   load, in the largest tenant (the bench's key is issued for it);
 * - store appends at 64 writers into the ledger (its own streams);
 * - the projection rebuild beside its same-run baseline (rebuild bench).
 *
 * BENCH_SCALE_EVENTS (0,1000000,10000000), BENCH_SCALE_STORES
 * (SQLite,PostgreSQL), BENCH_SCALE_SECONDS per route (5),
 * BENCH_SCALE_LEDGERS: a directory that keeps the generated ledgers for the
 * next run (a temporary one by default), BENCH_SCALE_REBUILD_MAX_EVENTS: the
 * largest ledger the rebuild benchmark runs on (1,000,000: it folds the
 * ledger in memory for its reference).
 */
export const SCALE_STORES = ['SQLite', 'PostgreSQL'] as const;
type Store = (typeof SCALE_STORES)[number];

/** Targets of issue 35, each against the same figure at 0 events in the same run. */
export const SCALE_TARGETS = { p99Growth: 1.25, appendRatio: 0.8, rssMb: 300, rebuildRatio: 0.7, redisBytesPerEvent: 300 };

const CONNECTIONS = 16;
/** Rounds of the 64-writer appends; the figure is their median. */
const APPEND_ROUNDS = 3;

export interface ScaleRoute {
  route: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** Requests answered within the window: none means the route answered nothing in time, though autocannon reports no error for it. */
  answered: number;
}

export interface ScalePoint {
  store: Store;
  events: number;
  consents: number;
  accessDecisions: number;
  /** Seconds from the process's start to /health/ready: on an empty Redis, then on the model the first start built. */
  emptyRedisToReadySeconds: number;
  existingModelToReadySeconds: number;
  rssMb: { afterStart: number; afterCatchUp: number; afterLoad: number };
  /** used_memory's growth while the first start built the read model. */
  redisBytes: number;
  routes: ScaleRoute[];
  /** Median of APPEND_ROUNDS rounds. */
  appendsPerSecond: number;
  /** Rebuild events/s over its baseline's (projection-rebuild.bench.ts); null where not run. */
  rebuildRatio: number | null;
}

export interface ScaleResult {
  connections: number;
  seconds: number;
  points: ScalePoint[];
  failed: boolean;
}

export async function runScaleBench(log: (line: string) => void): Promise<ScaleResult> {
  const sizes = listOf('BENCH_SCALE_EVENTS', '0,1000000,10000000').map((size) => Number(size.replace(/_/g, '')));
  const stores = listOf('BENCH_SCALE_STORES', SCALE_STORES.join(',')) as Store[];
  const unknown = stores.filter((store) => !(SCALE_STORES as readonly string[]).includes(store));
  if (unknown.length > 0) throw new Error(`BENCH_SCALE_STORES: unknown store ${unknown.join(', ')}`);
  const seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 5);
  const rebuildMaxEvents = Number((process.env.BENCH_SCALE_REBUILD_MAX_EVENTS ?? '1000000').replace(/_/g, ''));
  const kept = process.env.BENCH_SCALE_LEDGERS ? resolve(process.env.BENCH_SCALE_LEDGERS) : undefined;
  const ledgers = kept ?? mkdtempSync(join(tmpdir(), 'bench-scale-ledgers-'));
  mkdirSync(ledgers, { recursive: true });
  const points: ScalePoint[] = [];
  try {
    for (const store of stores) {
      for (const events of sizes) {
        const ledger = events === 0 ? null : await ledgerOf(ledgers, events, log);
        points.push(await measurePoint(store, ledger, { seconds, rebuild: events > 0 && events <= rebuildMaxEvents }, log));
      }
    }
  } finally {
    if (!kept) rmSync(ledgers, { recursive: true, force: true });
  }
  const failed = points.some((point) => point.routes.some((route) => route.failures > 0 || route.answered === 0));
  return { connections: CONNECTIONS, seconds, points, failed };
}

interface Ledger {
  file: string;
  events: number;
  consents: number;
  accessDecisions: number;
  /** The tenant with the most events: the bench's key is issued for it. */
  largestTenantId: string;
}

/** The generated ledger of `events` events, generated once and reused (kept in BENCH_SCALE_LEDGERS across runs). */
async function ledgerOf(dir: string, events: number, log: (line: string) => void): Promise<Ledger> {
  const file = join(dir, `ledger-${events}.sqlite`);
  if (!existsSync(file)) await generateInChildProcess(file, events, log, { label: 'scale' });
  const db = new Database(file, { readonly: true });
  try {
    const count = (type: string) => (db.prepare('SELECT count(*) AS n FROM events WHERE type = ?').get(type) as { n: number }).n;
    const largest = db
      .prepare("SELECT json_extract(metadata, '$.tenantId') AS tenantId, count(*) AS n FROM events GROUP BY tenantId HAVING tenantId IS NOT NULL ORDER BY n DESC LIMIT 1")
      .get() as { tenantId: string };
    const head = (db.prepare('SELECT max(position) AS head FROM events').get() as { head: number }).head;
    if (head !== events) throw new Error(`${file} holds ${head} events, not ${events}; delete it`);
    return { file, events, consents: count('ConsentGranted'), accessDecisions: count('AccessDecided'), largestTenantId: largest.tenantId };
  } finally {
    db.close();
  }
}

async function measurePoint(store: Store, ledger: Ledger | null, options: { seconds: number; rebuild: boolean }, log: (line: string) => void): Promise<ScalePoint> {
  const events = ledger?.events ?? 0;
  const label = `scale (${store}, ${events.toLocaleString('en-US')} events)`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedis(redisUrl, 'bench-scale');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const prefix = `bench-scale:${randomUUID()}`;
  const database = store === 'PostgreSQL' ? benchDatabaseName() : undefined;
  try {
    // The service appends to its ledger: a copy, so the generated one serves the next point as it was.
    if (ledger) copyFileSync(ledger.file, join(dataDir, SQLITE_FILE_NAME));
    const databaseUrl = database === undefined ? undefined : databaseUrlFor(POSTGRES_SERVER, database);
    if (database !== undefined) {
      await createDatabase(POSTGRES_SERVER, database);
      if (ledger) await copyToPostgres(ledger.file, databaseUrl!, log, label);
    }
    if (ledger) await markDispatchersFinished(openStore(store, dataDir, databaseUrl));
    const serviceOptions = {
      redisUrl,
      dataDir,
      prefix,
      masterKey: generatedLedgerMasterKey(),
      env: { LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    };
    const start = async () => {
      const startedAt = Date.now();
      const service = await spawnService(serviceOptions);
      const afterStart = rssMb(service.process.pid!);
      // A bound, not a timing: a catch-up of 10,000,000 events takes many minutes.
      await waitReady(service.baseUrl, service.process, 6 * 60 * 60_000);
      return { service, afterStart, readySeconds: (Date.now() - startedAt) / 1000 };
    };

    const memoryBefore = await usedMemory(redis);
    log(`${label}: starting on an empty Redis`);
    const first = await start();
    const afterCatchUp = rssMb(first.service.process.pid!);
    const redisBytes = (await usedMemory(redis)) - memoryBefore;
    await first.service.stop();
    log(`${label}: ready in ${first.readySeconds.toFixed(1)} s; read model ${(redisBytes / 1e6).toFixed(0)} MB; starting again on it`);
    const again = await start();
    const service = { ...again.service, apiKey: issueKey(again.service.env, ledger?.largestTenantId) };
    let routes: ScaleRoute[];
    let afterLoad: number;
    try {
      routes = [];
      for (const route of await scaleRoutes(service, log)) {
        log(`${label}: ${route.name}, ${CONNECTIONS} connections, ${options.seconds} s`);
        routes.push(await measureRoute(route, options.seconds));
      }
      afterLoad = rssMb(service.process.pid!);
    } finally {
      await service.stop();
    }

    log(`${label}: appends at 64 writers, ${APPEND_ROUNDS} rounds`);
    const appends: number[] = [];
    for (let round = 0; round < APPEND_ROUNDS; round += 1) {
      appends.push((await measureStore(openStore(store, dataDir, databaseUrl), SIXTY_FOUR_WRITERS, false, `scale-${round}`)).eventsPerSecond);
    }
    const rebuild = options.rebuild && ledger ? await runProjectionRebuildBench(log, { on: store, ledger: { file: ledger.file, events: ledger.events }, partitions: [] }) : null;
    return {
      store,
      events,
      consents: ledger?.consents ?? 0,
      accessDecisions: ledger?.accessDecisions ?? 0,
      emptyRedisToReadySeconds: first.readySeconds,
      existingModelToReadySeconds: again.readySeconds,
      rssMb: { afterStart: first.afterStart, afterCatchUp, afterLoad },
      redisBytes,
      routes,
      appendsPerSecond: median(appends),
      rebuildRatio: rebuild?.ratio ?? null,
    };
  } finally {
    await deleteKeysUnder(redis, prefix).catch(() => 0);
    redis.disconnect();
    if (database !== undefined) await dropDatabase(POSTGRES_SERVER, database);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The generated ledger as a service that served it leaves it: every
 * dispatcher's finished mark (decision 0080) at the head, its certificates,
 * reports and webhooks done. Without them a start on an empty Redis offers
 * the whole history to the queues again (every certificate rendered again),
 * which only a ledger never served does, and the catch-up measured would be
 * the dispatchers', not the read model's.
 */
async function markDispatchersFinished(ledger: EventStore): Promise<void> {
  try {
    const head = await ledger.headPosition();
    for (const { name } of [consentCertificatesQueue, regulatoryReportsQueue, webhookDeliveriesQueue]) await ledger.finishedMarks.advance(name, head);
  } finally {
    await ledger.close();
  }
}

function openStore(store: Store, dataDir: string, databaseUrl: string | undefined): StoreWithStats {
  return store === 'PostgreSQL' ? new PostgresEventStore(databaseUrl!) : new SqliteEventStore(join(dataDir, SQLITE_FILE_NAME));
}

/**
 * The routes whose cost could grow with the ledger, against a consent of the
 * key's tenant granted by the http benchmark's seeding: its read, authorize
 * (new and replayed), the lookup by its code, the tenant's overdue list and
 * export (first pages), and the grant's inclusion proof.
 */
async function scaleRoutes(service: Parameters<typeof routesOf>[0], log: (line: string) => void): Promise<Route[]> {
  const seeded = await routesOf(service, log);
  const named = (name: string) => seeded.find((route) => route.name === name)!;
  const consentRoute = named('GET consent');
  const { baseUrl, pid } = consentRoute;
  const headers = authHeaders(service.apiKey);
  const call = serviceCall(baseUrl, headers);
  const consentPath = consentRoute.requests[0].path;
  const { internalConsentCode } = (await call('GET', consentPath)) as { internalConsentCode: string };
  const bundle = await call('GET', `${consentPath}/audit-bundle`);
  const grantEvent = (bundle.events as Array<{ eventId: string; type: string }>).find((event) => event.type === 'ConsentGranted')!;
  await seedFullPage(call, log);
  const route = (name: string, path: string): Route => ({ name, baseUrl, pid, requests: [{ method: 'GET', path, headers }] });
  return [
    consentRoute,
    named('POST authorize (new decision)'),
    named('POST authorize (replay)'),
    route('GET consent by code', `/v1/redec/consents?internalConsentCode=${internalConsentCode}`),
    route('GET overdue notices (first page)', '/v1/redec/notifications/overdue?afterBankingDays=2'),
    route('GET consent export (first page)', '/v1/redec/consent-exports'),
    route('GET inclusion proof', `/v1/ledger/events/${grantEvent.eventId}/proof`),
  ];
}

/** Items on a list's first page (the default `limit`). */
const PAGE = 50;
const DAY = 24 * 60 * 60_000;

/**
 * A full first page of the overdue list and of the export, at every size (at
 * 0 events the tenant has only the seeded consent): PAGE consents granted six
 * days ago, within the baseline profile's seven-day skew, so that their grant
 * notices, never given, are overdue at two banking days.
 */
async function seedFullPage(call: ReturnType<typeof serviceCall>, log: (line: string) => void): Promise<void> {
  const post = (path: string, body: unknown) => call('POST', path, body);
  log(`scale: granting ${PAGE} consents six days back, for a full first page of the lists`);
  const { configurationId } = await post('/v1/configurations', redecConfiguration('bench-scale'));
  for (let i = 0; i < PAGE; i += 1) {
    const { customerId } = await post('/v1/customers/resolve', customerResolution(20_000_000 + i));
    const { interactionId } = await post('/v1/redec/consent-interactions', { configurationId, customerId });
    await post(`/v1/redec/consent-interactions/${interactionId}/grant`, {
      occurredAt: Date.now() - 6 * DAY,
      sourceSystem: 'bench',
      sourceReference: `scale-${randomUUID()}`,
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-1' } },
    });
  }
}

async function measureRoute(route: Route, seconds: number): Promise<ScaleRoute> {
  const result = await autocannon({ url: route.baseUrl, connections: CONNECTIONS, duration: seconds, requests: route.requests, timeout: 10 });
  return {
    route: route.name,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
    answered: result.requests.total,
  };
}

function listOf(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
