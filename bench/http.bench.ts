import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRedis, deleteKeysUnder } from '@ledger/platform';
import { generateLedger, generatedLedgerMasterKey } from './generate-ledger';
import { customerResolution, redecConfiguration } from './fixtures';

// autocannon ships no types: what the benchmarks use of it.
export const autocannon: (options: CannonOptions) => Promise<CannonResult> = require('autocannon');

interface CannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest) => CannonRequest;
}
interface CannonOptions {
  url: string;
  connections: number;
  /** Seconds to run, or */
  duration?: number;
  /** requests to make. */
  amount?: number;
  requests: CannonRequest[];
  timeout?: number;
}
interface Histogram {
  average: number;
  p50: number;
  p99: number;
  p99_9: number;
  max: number;
}
export interface CannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/**
 * Issue 14: the request path of the built service beside a bare Fastify
 * hello-world measured in the same run, each its own process, loaded by
 * autocannon from this one at a fixed number of connections for a fixed time.
 * See bench/README.md.
 */

/**
 * The routes of bench/bare-service.ts, each measured after the route whose
 * shape it has (`route`), with the same requests. BARE_CONSENT_KEY holds the
 * first route's answer, BARE_REPLAY_REQUEST and BARE_REPLAY_ANSWER are the
 * second's; the third appends each request's body.
 */
export const REFERENCES = [
  { route: 'GET consent', reference: 'bare consent read (reference)', path: '/consents/bench' },
  { route: 'POST authorize (replay)', reference: 'bare replay (reference)', path: '/accesses/authorize' },
  { route: 'POST authorize (new decision)', reference: 'bare durable decision (reference)', path: '/accesses/decide' },
] as const;

/**
 * The targets (decision 0051, issue 31): each route's throughput as a ratio
 * of its reference's in the same run, which is what the machine allows for a
 * route of that shape (a ratio to hello-world moves with the machine's
 * load), and a p99 bound.
 */
export const TARGETS: Record<string, { ratio: number; p99Ms: number }> = {
  'GET consent': { ratio: 0.35, p99Ms: 60 },
  'POST authorize (replay)': { ratio: 0.4, p99Ms: 60 },
  'POST authorize (new decision)': { ratio: 0.2, p99Ms: 100 },
};

export const CONNECTIONS = 64;
const SCALING_CONNECTIONS = [1, 16, 64, 256];
/** Grants a run makes per second it would have lasted: about what the service sustains, so a grant run lasts about as long as the others. */
const GRANTS_PER_SECOND_OF_RUN = Number(process.env.BENCH_HTTP_GRANTS_PER_SECOND ?? 400);
const ROOT = resolve(__dirname, '../..');
const DIST = join(ROOT, 'dist');

export interface RouteFigures {
  route: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  errors: number;
  non2xx: number;
  /** Throughput over hello-world's at the same number of connections in the same run. */
  ratio: number;
  /** CPU time (user + system) the serving process spent per request answered, the work the requests left behind included (it is read once the process has settled). */
  cpuMicrosPerRequest: number;
  /** hello-world's CPU per request over this route's: the ratio without the load generator's and other processes' share of the machine. */
  cpuRatio: number;
}

export interface HttpBenchResult {
  durationSeconds: number;
  routes: RouteFigures[];
  scaling: RouteFigures[];
  targets: Array<{ route: string; reference: string; ratio: number; p99Ms: number; measuredRatio: number; measuredP99Ms: number; met: boolean }>;
  /** Resident memory of the service (MB) over a generated ledger, when measured. */
  memory: { ledgerEvents: number; afterStartMb: number; afterLoadMb: number; afterRebuildMb: number } | null;
  /** Any route that answered an error or an unexpected status. */
  failed: boolean;
}

export interface HttpBenchOptions {
  /** Seconds each measurement runs (10). */
  durationSeconds?: number;
  /** Events of the generated ledger for the memory measurement (1,000,000); 0 leaves it out. */
  ledgerEvents?: number;
}

export async function runHttpBench(log: (line: string) => void, options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_HTTP_SECONDS ?? 10);
  const ledgerEvents = options.ledgerEvents ?? Number((process.env.BENCH_HTTP_LEDGER_EVENTS ?? '1000000').replace(/_/g, ''));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  const hello = await startHelloWorld();
  const service = await startService({ redisUrl });
  let bare: Awaited<ReturnType<typeof startBareService>> | undefined;
  try {
    // BENCH_HTTP_ROUTES=consent,replay measures only the routes whose names contain one of the words (a profile of one route).
    const only = process.env.BENCH_HTTP_ROUTES?.split(',').map((word) => word.trim().toLowerCase());
    const seeded = await routesOf(service, log);
    const routes = seeded.filter((route) => !only || only.some((word) => route.name.toLowerCase().includes(word)));
    // The references, each beside the route whose shape it has: the same answer, given the least way the stack allows.
    if (REFERENCES.some(({ route }) => routes.some((r) => r.name === route))) {
      bare = await startBareService(service, redisUrl, seeded);
      bare.routes.forEach((reference, i) => {
        const at = routes.findIndex((route) => route.name === REFERENCES[i].route);
        if (at >= 0) routes.splice(at + 1, 0, reference);
      });
    }
    const measure = async (route: Route, connections: number, seconds: number) => {
      // A route that uses up what it needs (the grant: one interaction each) runs a set number of requests, prepared beforehand.
      const amount = route.prepare ? Math.max(connections * 4, Math.round(GRANTS_PER_SECOND_OF_RUN * seconds)) : undefined;
      if (route.prepare) await route.prepare(amount!);
      await settled(route.pid);
      const cpuBefore = cpuMicrosOf(route.pid);
      const result = await autocannon({ url: route.baseUrl, connections, ...(amount ? { amount } : { duration: seconds }), requests: route.requests, timeout: 10 });
      // The work the requests left behind (a grant's certificate and webhooks) is part of what they cost.
      await settled(route.pid);
      return { route: route.name, connections, result, cpuMicros: cpuMicrosOf(route.pid) - cpuBefore };
    };

    log(`http: warming up every route for 3 s`);
    for (const route of [hello.route, ...routes]) await measure(route, CONNECTIONS, 3);

    const main: RouteFigures[] = [];
    const helloMain = await measure(hello.route, CONNECTIONS, durationSeconds);
    for (const route of routes) {
      log(`http: ${route.name}, ${CONNECTIONS} connections, ${durationSeconds} s`);
      main.push(figures(await measure(route, CONNECTIONS, durationSeconds), helloMain));
    }
    main.unshift(figures(helloMain, helloMain));

    const scaling: RouteFigures[] = [];
    const scalingSeconds = Math.max(3, Math.round(durationSeconds / 2));
    // BENCH_HTTP_SCALING=1,64 (or empty to leave the curve out) changes the connection counts of the curve.
    const scalingConnections = process.env.BENCH_HTTP_SCALING === undefined ? SCALING_CONNECTIONS : process.env.BENCH_HTTP_SCALING.split(',').filter(Boolean).map(Number);
    for (const connections of scalingConnections) {
      log(`http: scaling, ${connections} connections, ${scalingSeconds} s per route`);
      const baseline = await measure(hello.route, connections, scalingSeconds);
      scaling.push(figures(baseline, baseline));
      for (const route of routes) scaling.push(figures(await measure(route, connections, scalingSeconds), baseline));
    }

    const targets = Object.entries(TARGETS).flatMap(([route, target]) => {
      const reference = REFERENCES.find((r) => r.route === route)!.reference;
      const measured = main.find((r) => r.route === route);
      const bare = main.find((r) => r.route === reference);
      if (!measured || !bare) return [];
      const measuredRatio = measured.requestsPerSecond / bare.requestsPerSecond;
      const met = measuredRatio >= target.ratio && measured.p99Ms <= target.p99Ms;
      return [{ route, reference, ratio: target.ratio, p99Ms: target.p99Ms, measuredRatio, measuredP99Ms: measured.p99Ms, met }];
    });
    const failed = [...main, ...scaling].some((r) => r.errors > 0 || r.non2xx > 0);
    await service.stop();
    const memory = ledgerEvents > 0 ? await measureMemory(ledgerEvents, redisUrl, log) : null;
    return { durationSeconds, routes: main, scaling, targets, memory, failed };
  } finally {
    await Promise.all([hello.stop(), service.stop(), bare?.stop()]);
  }
}

export interface Route {
  name: string;
  baseUrl: string;
  /** The process that serves it, whose CPU time is counted. */
  pid: number;
  requests: CannonRequest[];
  /** Makes ready what `amount` requests of the route will use; the route then runs that many requests rather than for a time. */
  prepare?(amount: number): Promise<void>;
}

interface Measured {
  route: string;
  connections: number;
  result: CannonResult;
  cpuMicros: number;
}

function figures({ route, connections, result, cpuMicros }: Measured, baseline: Measured): RouteFigures {
  const requestsPerSecond = result.requests.total / result.duration;
  const baselinePerSecond = baseline.result.requests.total / baseline.result.duration;
  const cpuMicrosPerRequest = cpuMicros / Math.max(1, result.requests.total);
  return {
    route,
    connections,
    requestsPerSecond,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    p999Ms: result.latency.p99_9,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ratio: requestsPerSecond / baselinePerSecond,
    cpuMicrosPerRequest,
    cpuRatio: baseline.cpuMicros / Math.max(1, baseline.result.requests.total) / cpuMicrosPerRequest,
  };
}

/**
 * Waits until `pid` is using less than a tenth of a core, at most
 * SETTLE_TIMEOUT_MS: a grant run leaves the service rendering certificates
 * and delivering webhooks for seconds after its last answer. That work is
 * counted to the grants (CPU is read once the service has settled), and a
 * route measured meanwhile would be charged with it.
 */
async function settled(pid: number): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const before = cpuMicrosOf(pid);
    await new Promise((r) => setTimeout(r, SETTLE_WINDOW_MS));
    if (cpuMicrosOf(pid) - before < SETTLE_WINDOW_MS * 100 || Date.now() > deadline) return;
  }
}
const SETTLE_WINDOW_MS = 500;
const SETTLE_TIMEOUT_MS = 60_000;

/** CPU time (user + system, µs) a process has used, from /proc (Linux). */
function cpuMicrosOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

/**
 * The routes of issue 14 against one tenant: a consent read, authorize with a
 * new decision each time and the same request replayed, a customer resolved
 * again, and grants (each of its own interaction, opened beforehand).
 */
export async function routesOf(service: RunningService, log: (line: string) => void): Promise<Route[]> {
  const { baseUrl, apiKey } = service;
  const pid = service.process.pid!;
  const auth = authHeaders(apiKey);
  const call = serviceCall(baseUrl, auth);
  const configuration = await call('POST', '/v1/configurations', redecConfiguration('bench-http'));
  const resolution = customerResolution(12_345_678);
  const { customerId } = await call('POST', '/v1/customers/resolve', resolution);
  const grantBody = () => ({
    occurredAt: Date.now() - 60_000,
    sourceSystem: 'bench',
    sourceReference: `cap-${randomUUID()}`,
    evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-1' } },
  });
  const openInteraction = async () => (await call('POST', '/v1/redec/consent-interactions', { configurationId: configuration.configurationId, customerId })).interactionId as string;
  const { redecConsentId } = await call('POST', `/v1/redec/consent-interactions/${await openInteraction()}/grant`, grantBody());

  const access = (sourceReference: string) =>
    JSON.stringify({
      authorizationBasis: 'consent',
      consentAuthorizationMode: 'initial_window',
      redecConsentId,
      dataCategoryCode: 'redec.consolidated_debt_record',
      scopeId: 'redec-debt',
      objectiveCode: '02',
      reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'solicitud-1', assertedAt: Date.now() - 1000 },
      sourceSystem: 'bench',
      sourceReference,
    });
  const replayed = access('replayed');
  await call('POST', '/v1/redec/accesses/authorize', JSON.parse(replayed));

  // Each grant uses an interaction of its own, opened before the run so that what is measured is the grant.
  const interactions: string[] = [];
  const prepareGrants = async (amount: number) => {
    log(`http: opening ${amount} interactions for the grant run`);
    interactions.length = 0;
    for (let i = 0; i < amount; i += 64) interactions.push(...(await Promise.all(Array.from({ length: Math.min(64, amount - i) }, openInteraction))));
  };

  let nextAccess = 0;
  return [
    // What any route of the service costs before its own work: every platform hook (request id, context, rate limit, metrics, the log line) and Nest's routing, no key, no I/O.
    { name: 'GET health (the floor)', baseUrl, pid, requests: [{ method: 'GET', path: '/health/live' }] },
    { name: 'GET consent', baseUrl, pid, requests: [{ method: 'GET', path: `/v1/redec/consents/${redecConsentId}`, headers: auth }] },
    {
      name: 'POST authorize (new decision)',
      baseUrl,
      pid,
      requests: [{ method: 'POST', path: '/v1/redec/accesses/authorize', headers: auth, setupRequest: (request) => ({ ...request, body: access(`new-${(nextAccess += 1)}`) }) }],
    },
    { name: 'POST authorize (replay)', baseUrl, pid, requests: [{ method: 'POST', path: '/v1/redec/accesses/authorize', headers: auth, body: replayed }] },
    { name: 'POST customers/resolve (repeat)', baseUrl, pid, requests: [{ method: 'POST', path: '/v1/customers/resolve', headers: auth, body: JSON.stringify(resolution) }] },
    {
      name: 'POST grant',
      baseUrl,
      pid,
      prepare: prepareGrants,
      requests: [
        {
          method: 'POST',
          path: '/',
          headers: auth,
          setupRequest: (request) => {
            const interactionId = interactions.pop();
            if (!interactionId) throw new Error('http: a grant run asked for more grants than it prepared');
            return { ...request, path: `/v1/redec/consent-interactions/${interactionId}/grant`, body: JSON.stringify(grantBody()) };
          },
        },
      ],
    },
  ];
}

/** The headers of a JSON request with the bench's key. */
export function authHeaders(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
}

/** A call to the service during set-up: its JSON answer, or the run stops on any status from 300, naming the call. */
export function serviceCall(baseUrl: string, headers: Record<string, string>) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, any>;
  };
}

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  /** The service's environment, for the operator CLI beside it. */
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The built service as `npm start` runs it, on a fresh data dir and Redis prefix, once it is ready, with a tenant and a key minted by the operator CLI. */
export async function startService(options: ServiceOptions & { readyTimeoutMs?: number }): Promise<RunningService> {
  const service = await spawnService(options);
  try {
    await waitReady(service.baseUrl, service.process, options.readyTimeoutMs);
    return { ...service, apiKey: issueKey(service.env) };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/**
 * An API key minted by the operator CLI beside the service, with every scope
 * the benchmarks call, for `tenantId` (a new tenant without one).
 */
export function issueKey(env: NodeJS.ProcessEnv, tenantId?: string): string {
  const cli = (args: string[]) => JSON.parse(runSync(process.execPath, [join(DIST, 'apps/cli/src/main.js'), ...args], env)) as Record<string, string>;
  const tenant = tenantId ?? cli(['tenant', 'create', '--name', 'Banco Bench']).tenantId;
  return cli(['key', 'issue', '--tenant', tenant, '--scopes', 'consent:admin,consent:write,consent:read,consent:runtime,consent:identity-assert,consent:audit']).apiKey;
}

export interface ServiceOptions {
  redisUrl: string;
  dataDir?: string;
  masterKey?: string;
  /** A Redis prefix the caller owns (a read model kept from one start to the next): stop() leaves its keys. A fresh one, deleted at stop, by default. */
  prefix?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The built service started on a fresh Redis prefix (and a fresh data dir
 * unless one is given), returned as soon as it listens: its projections may
 * still be catching up with the ledger.
 */
export async function spawnService(options: ServiceOptions): Promise<Omit<RunningService, 'apiKey'>> {
  requireBuilt();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-http-'));
  const prefix = options.prefix ?? `bench-http:${randomUUID()}`;
  const port = 3300 + Math.floor(Math.random() * 500);
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    LEDGER_DATA_DIR: dataDir,
    LEDGER_REDIS_PREFIX: prefix,
    LEDGER_MASTER_KEY: options.masterKey ?? randomBytes(32).toString('hex'),
    LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'),
    LEDGER_PUBLIC_URL: 'https://consents.bench.example',
    REDIS_URL: options.redisUrl,
    // One key drives every request of the run: the limit must not be what the figures measure; its cost still is.
    LEDGER_RATE_LIMIT_PER_MINUTE: String(100_000_000),
    ...options.env,
  };
  // BENCH_HTTP_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/profile' profiles the service during the run.
  const nodeArgs = process.env.BENCH_HTTP_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(DIST, 'apps/api/src/main.js')], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopProcess(child);
    if (!options.prefix) {
      const redis = createRedis(options.redisUrl, 'bench-http-cleanup');
      await deleteKeysUnder(redis, prefix).finally(() => redis.disconnect());
    }
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${baseUrl}/health/live`, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, env, process: child, stop };
}

async function startHelloWorld(): Promise<{ route: Route; stop(): Promise<void> }> {
  const { child, baseUrl } = await startBenchServer('hello-world');
  return { route: { name: 'hello-world', baseUrl, pid: child.pid!, requests: [{ method: 'GET', path: '/' }] }, stop: () => stopProcess(child) };
}

/**
 * A server of bench/ (hello-world, bare-service) from the build, as its own
 * process; its address is the first line it writes on stderr (stdout is for
 * its log lines, if it writes any).
 */
async function startBenchServer(name: string, env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; baseUrl: string }> {
  requireBuilt();
  const child = spawn(process.execPath, [join(DIST, `bench/${name}.js`)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    child.stderr!.once('data', (chunk: Buffer) => resolveUrl(chunk.toString().trim()));
    child.once('exit', () => reject(new Error(`${name} exited`)));
  });
  return { child, baseUrl };
}

/**
 * bench/bare-service.ts behind the service's own API key, answering what the
 * service answered before the run: the benchmark's consent (under a key of
 * the service's Redis prefix, deleted with it) and the replayed authorize;
 * its decisions go to a file of its own.
 */
async function startBareService(service: RunningService, redisUrl: string, seeded: Route[]): Promise<{ routes: Route[]; stop(): Promise<void> }> {
  const requests = REFERENCES.map(({ route }) => seeded.find((r) => r.name === route)!.requests[0]);
  const [consentRequest, replayRequest] = requests;
  const [consent, replayAnswer] = await Promise.all([consentRequest, replayRequest].map((request) => answerOf(service, request)));
  const decisions = mkdtempSync(join(tmpdir(), 'bench-bare-decisions-'));
  const consentKey = `${service.env.LEDGER_REDIS_PREFIX}:bench-bare-consent`;
  const redis = createRedis(redisUrl, 'bench-bare-service-seed');
  await redis.set(consentKey, consent).finally(() => redis.disconnect());
  const { child, baseUrl } = await startBenchServer('bare-service', {
    ...process.env,
    REDIS_URL: redisUrl,
    BARE_CONSENT_KEY: consentKey,
    BARE_SECRET_SHA256: createHash('sha256').update(service.apiKey).digest('hex'),
    BARE_REPLAY_REQUEST: replayRequest.body!,
    BARE_REPLAY_ANSWER: replayAnswer,
    BARE_DECISIONS_FILE: join(decisions, 'decisions.sqlite'),
  });
  return {
    routes: REFERENCES.map(({ reference, path }, i) => ({ name: reference, baseUrl, pid: child.pid!, requests: [{ ...requests[i], path }] })),
    stop: () => stopProcess(child).finally(() => rmSync(decisions, { recursive: true, force: true })),
  };
}

async function answerOf(service: RunningService, request: CannonRequest): Promise<string> {
  const response = await fetch(`${service.baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  if (response.status >= 300) throw new Error(`http: ${request.method} ${request.path} answered ${response.status} before the run`);
  return response.text();
}

/**
 * The service started on a generated ledger (the rebuild benchmark's
 * generator): resident memory once it has caught up, after the same load, and
 * after a rebuild of every projection.
 */
async function measureMemory(events: number, redisUrl: string, log: (line: string) => void): Promise<HttpBenchResult['memory']> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-http-ledger-'));
  try {
    log(`http: generating a ledger of ${events.toLocaleString('en-US')} events`);
    await generateLedger({ events, file: join(dataDir, 'ledger.sqlite') });
    // The generator's master key: the keyring it wrote opens under it.
    const masterKey = generatedLedgerMasterKey();
    // Catching up with 1,000,000 events took 17 minutes on a two-core machine loaded by other work: a bound, not a timing.
    const service = await startService({ redisUrl, dataDir, masterKey, readyTimeoutMs: 60 * 60_000 });
    try {
      const afterStartMb = rssMb(service.process.pid!);
      log(`http: service caught up with the ledger: RSS ${afterStartMb.toFixed(0)} MB`);
      const routes = await routesOf(service, log);
      // Every route but the grant, which uses up interactions prepared for it.
      for (const route of routes.filter((r) => !r.prepare)) await autocannon({ url: route.baseUrl, connections: CONNECTIONS, duration: 5, requests: route.requests });
      const afterLoadMb = rssMb(service.process.pid!);
      log(`http: after load: RSS ${afterLoadMb.toFixed(0)} MB; rebuilding every projection`);
      runSync(process.execPath, [join(DIST, 'apps/cli/src/main.js'), 'projections', 'rebuild'], service.env);
      const afterRebuildMb = rssMb(service.process.pid!);
      return { ledgerEvents: events, afterStartMb, afterLoadMb, afterRebuildMb };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

function requireBuilt(): void {
  if (!existsSync(join(DIST, 'apps/api/src/main.js'))) throw new Error('http: build first (npm run bench builds)');
}

/** Until /health/ready says ready: caught up, not merely serving while the read model is rebuilt (status `degraded`). */
export async function waitReady(baseUrl: string, child: ChildProcess, timeoutMs = 600_000): Promise<void> {
  await waitFor(`${baseUrl}/health/ready`, child, timeoutMs, async (response) => response.status === 200 && ((await response.json()) as { status: string }).status === 'ready');
}

/** Until `url` gives an answer `accepted` takes (by default, any 200). */
export async function waitFor(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  accepted: (response: Response) => Promise<boolean> = async (response) => response.status === 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`http: the service exited (${child.exitCode}) during start`);
    try {
      if (await accepted(await fetch(url))) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`http: ${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function runSync(command: string, args: string[], env: NodeJS.ProcessEnv): string {
  const ran = spawnSync(command, args, { env, encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(`${args.join(' ')}: exit ${ran.status}: ${ran.stdout}${ran.stderr}`);
  return ran.stdout;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
