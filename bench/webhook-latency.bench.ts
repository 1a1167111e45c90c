import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EVENT_STORE, EventStore, SqliteEventStore } from '@ledger/event-store';
import { createTenant, issueApiKey } from '@ledger/ledger';
import { createRedis, deleteKeysUnder, loadConfig } from '@ledger/platform';
import { QueueRuntime } from '@ledger/queues';
import { redecStreams } from '@ledger/redec';
import { GrantNotification, WebhookDeliveryAttempted, WebhookJob, resolveDeliveryAddresses, webhookHeaders, webhookStreams } from '@ledger/webhooks';
import { createApiApp } from '../apps/api/src/create-api-app';
import { webhookDeliveriesQueue } from '../apps/api/src/webhooks/webhook-deliveries.queue';
import { consentCertificatesQueue } from '../apps/api/src/redec/artifacts/consent-certificates.queue';
// The service's own POST (connects to the address checked, as every delivery does); not exported by the library's index.
import { postToAddress } from '../libs/webhooks/src/deliveries/post-to-address';
import { customerResolution, expectStatus, redecConfiguration } from './fixtures';
import type { DriverReply, DriverRequest, GrantTiming, PlannedGrant, Receipt } from './webhook-latency.driver';

/**
 * Grant-to-delivery latency of `redec.notification.required` (issue 5): the
 * whole service in this process on its real stack, grants driven over HTTP
 * at a steady rate, deliveries received by a loopback receiver; beside it,
 * in the same run, the round trip of a plain signed POST of the same bodies
 * to the same receiver at the same rate. See bench/README.md.
 */

export interface WebhookLatencyOptions {
  /** 100 (issue 5's rate). */
  grantsPerSecond?: number;
  /** Sent first at the same rate and left out of the figures (JIT, connection pools, caches); 200. */
  warmupGrants?: number;
  /** 1000: about ten seconds at 100 per second. */
  measuredGrants?: number;
}

export const TARGET_GRANTS_PER_SECOND = 100;
export const TARGET_P95_MS = 250;
/** Resolution of the event-loop delay monitor; subtracted from its figures, which include it. */
const LOOP_DELAY_RESOLUTION_MS = 5;

/** How long the deliveries may trail the last grant before the missing ones are counted as lost. */
const DELIVERY_DEADLINE_MS = 60_000;
/** After the last expected delivery, how long the receiver keeps listening for duplicates. */
const SETTLE_MS = 2_000;
/** Concurrent requests while preparing customers and interactions (outside the clock). */
const PREPARE_CONCURRENCY = 16;
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'];
const MINUTE = 60_000;

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface WebhookLatencyResult {
  grantsPerSecond: number;
  warmupGrants: number;
  measuredGrants: number;
  /** Grant request due → complete 201 answer at the client. */
  grantResponseMs: LatencySummary;
  /** Grant request due → the delivery's body complete at the receiver. */
  grantToDeliveryMs: LatencySummary;
  /** Baseline: a plain signed POST of the same body, due → 204 answer back at the sender. */
  baselinePostRoundTripMs: LatencySummary;
  /** Baseline, due → body complete at the receiver (sender and receiver clocks are those of two threads of one process). */
  baselinePostToReceiptMs: LatencySummary;
  /** grant-to-delivery p95 / (grant response p95 + baseline POST round trip p95). */
  ratio: number;
  targetP95Ms: number;
  targetMet: boolean;
  counts: {
    grantsSent: number;
    grantsAccepted: number;
    grantsRefused: number;
    deliveriesReceived: number;
    grantsDeliveredOnce: number;
    grantsNotDelivered: number;
    duplicateDeliveries: number;
    unexpectedDeliveries: number;
    /** WebhookDeliveryAttempted facts with outcome `delivered`, and all of them, in the endpoint's stream. */
    attemptsRecordedDelivered: number;
    attemptsRecorded: number;
    jobsFailed: number;
    jobsNotFinished: number;
    baselineSent: number;
    baselineAnswered204: number;
    baselineReceived: number;
    /** Service log lines at warn or above during the run. */
    serviceWarnings: number;
  };
  /** All measured deliveries were received exactly once and every grant was accepted. */
  nothingLost: boolean;
  /** Where a measured grant's time goes, from the service's own stamps (epoch ms of one machine). */
  stagesMs: Record<string, LatencySummary>;
  /** Measured deliveries whose body reached the receiver before the grant's 201 reached the client. */
  deliveredBeforeResponse: number;
  /** Of the service's thread during the grant phase: how late its timers ran. */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** Of the service's thread during the grant phase: the share of time it was busy (0 to 1). */
  serviceThreadUtilization: number;
  /** The SQLite store's appends and committed transactions (each an fsync) per grant during the grant phase; null for another store. */
  storePerGrant: { appends: number; transactions: number } | null;
  /** Process CPU time (all threads) per wall second during the grant phase. */
  processCpuCores: number;
  /** How late the driver sent a grant after it was due, at worst (the open loop's own accuracy). */
  maxSendLagMs: number;
  firstWarnings: string[];
}

interface Stamped {
  timing: GrantTiming;
  receipt: Receipt | undefined;
}

export async function runWebhookLatencyBench(log: (line: string) => void, options: WebhookLatencyOptions = {}): Promise<WebhookLatencyResult> {
  const grantsPerSecond = options.grantsPerSecond ?? TARGET_GRANTS_PER_SECOND;
  const warmupGrants = options.warmupGrants ?? 200;
  const measuredGrants = options.measuredGrants ?? 1_000;
  const intervalMs = 1000 / grantsPerSecond;
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-bench-webhooks-'));
  const prefix = `bench:${randomUUID()}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // The service's defaults, except what isolates this run (its own data directory, Redis prefix and key) and the receiver on loopback.
  const config = loadConfig(
    {
      LEDGER_DATA_DIR: dataDir,
      LEDGER_REDIS_PREFIX: prefix,
      LEDGER_MASTER_KEY: randomBytes(32).toString('hex'),
      LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'),
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'info',
      LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    log,
  );
  const serviceLog = new ServiceLogSink();
  const agent = new Agent({ keepAlive: true });
  let app: NestFastifyApplication | undefined;
  let driver: Driver | undefined;
  try {
    log(`webhook latency: starting the service (data ${dataDir}, Redis ${redisUrl} under ${prefix})...`);
    app = await createApiApp(config, serviceLog);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.getHttpServer().address() as AddressInfo;
    const api = httpClient(agent, `http://127.0.0.1:${port}`);
    await waitUntil(async () => (await api('GET', '/health/ready')).status === 200, 30_000, 'the service to be ready');
    driver = await Driver.start();

    // Everything a grant needs, before the clock starts.
    const store = app.get<EventStore>(EVENT_STORE);
    const operator = { actor: 'cli:bench', correlationId: 'bench', now: Date.now() };
    const { tenantId } = await createTenant(store, 'Banco de Prueba', operator);
    const { apiKey } = await issueApiKey(store, { tenantId, scopes: SCOPES }, operator);
    const call = (method: string, path: string, body?: unknown) => api(method, path, body, apiKey);
    await waitUntil(async () => (await call('GET', '/v1/webhook-endpoints')).status === 200, 10_000, 'the API key to be accepted');
    const endpoint = expectStatus(201, await call('POST', '/v1/webhook-endpoints', { url: driver.url, eventTypes: ['redec.notification.required'] }), 'register endpoint');
    const { endpointId, secret } = endpoint as { endpointId: string; secret: string };
    const { configurationId } = expectStatus(201, await call('POST', '/v1/configurations', redecConfiguration(`redec-bench-${randomUUID()}`)), 'publish configuration') as {
      configurationId: string;
    };
    const total = warmupGrants + measuredGrants;
    log(`webhook latency: preparing ${total} verified customers and interactions...`);
    const occurredAt = Date.now() - MINUTE;
    const grants = await mapConcurrently(total, PREPARE_CONCURRENCY, async (i): Promise<PlannedGrant> => {
      const { customerId } = expectStatus(201, await call('POST', '/v1/customers/resolve', customerResolution(21_000_000 + i * 7)), 'resolve customer') as { customerId: string };
      const { interactionId } = expectStatus(201, await call('POST', '/v1/redec/consent-interactions', { configurationId, customerId }), 'open interaction') as {
        interactionId: string;
      };
      const body = JSON.stringify({
        occurredAt,
        sourceSystem: 'crm',
        sourceReference: `cap-${randomUUID()}`,
        evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
      });
      return { interactionId, body };
    });
    const queues = app.get(QueueRuntime, { strict: false });
    await waitForIdleQueues(queues, 30_000);

    // The grants, open loop at the rate.
    log(`webhook latency: ${total} grants at ${grantsPerSecond}/s (the first ${warmupGrants} are warm-up)...`);
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    loopDelay.enable();
    const storeBefore = storeStats(store);
    const cpuBefore = process.cpuUsage();
    const utilizationBefore = performance.eventLoopUtilization();
    const wallBefore = performance.now();
    const timings = await driver.drive({ baseUrl: `http://127.0.0.1:${port}`, apiKey, intervalMs, grants });
    const accepted = timings.filter((t) => t.status === 201 && t.redecConsentId !== null);
    log(`webhook latency: ${accepted.length} of ${timings.length} grants accepted; waiting for their deliveries...`);
    const deliveredAll = await waitUntil(async () => (await driver!.count()) >= accepted.length, DELIVERY_DEADLINE_MS, null);
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - wallBefore;
    const utilization = performance.eventLoopUtilization(utilizationBefore).utilization;
    const storeAfter = storeStats(store);
    loopDelay.disable();
    if (!deliveredAll) log(`webhook latency: deliveries still missing ${DELIVERY_DEADLINE_MS / 1000} s after the last grant`);
    await sleep(SETTLE_MS);
    await waitForIdleQueues(queues, 30_000);
    const receipts = await driver.takeReceipts();

    // The baseline: the same bodies, signed as a delivery is, POSTed to the same receiver at the same rate, with the service idle.
    log(`webhook latency: baseline, ${receipts.length} plain signed POSTs of the same bodies at ${grantsPerSecond}/s...`);
    const baseline = await postBaseline(driver.url, secret, receipts.map((r) => r.body), intervalMs);
    await sleep(500);
    const baselineReceipts = await driver.takeReceipts();

    // Counting: every accepted grant delivered exactly once.
    const receiptsByConsent = new Map<string, Receipt[]>();
    for (const receipt of receipts) {
      const consentId = consentIdOf(receipt.body);
      receiptsByConsent.set(consentId, [...(receiptsByConsent.get(consentId) ?? []), receipt]);
    }
    const acceptedIds = new Set(accepted.map((t) => t.redecConsentId as string));
    const deliveredOnce = [...acceptedIds].filter((id) => receiptsByConsent.get(id)?.length === 1).length;
    const notDelivered = [...acceptedIds].filter((id) => !receiptsByConsent.has(id)).length;
    const duplicates = [...receiptsByConsent.values()].reduce((sum, list) => sum + Math.max(0, list.length - 1), 0);
    const unexpected = [...receiptsByConsent.keys()].filter((id) => !acceptedIds.has(id)).length;
    const attempts = (await store.readStream(webhookStreams.deliveries(tenantId, endpointId))).map((e) => e.data as WebhookDeliveryAttempted['data']);
    const jobCounts = await queues.queue(webhookDeliveriesQueue.name).getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');

    // The figures, over the measured grants only.
    const measured: Stamped[] = timings.slice(warmupGrants).map((timing) => ({
      timing,
      receipt: timing.redecConsentId === null ? undefined : receiptsByConsent.get(timing.redecConsentId)?.[0],
    }));
    const answered = measured.filter((m) => m.timing.respondedAt !== null);
    const delivered = measured.filter((m) => m.receipt !== undefined);
    const grantResponseMs = summarize(answered.map((m) => (m.timing.respondedAt as number) - m.timing.scheduledAt));
    const grantToDeliveryMs = summarize(delivered.map((m) => (m.receipt as Receipt).receivedAt - m.timing.scheduledAt));
    const baselineMeasured = baseline.slice(warmupGrants);
    const baselinePostRoundTripMs = summarize(baselineMeasured.filter((b) => b.answeredAt !== null).map((b) => (b.answeredAt as number) - b.scheduledAt));
    const receivedAtByBody = new Map(baselineReceipts.map((r) => [r.body, r.receivedAt]));
    const baselinePostToReceiptMs = summarize(
      baselineMeasured.flatMap((b) => (receivedAtByBody.has(b.body) ? [(receivedAtByBody.get(b.body) as number) - b.scheduledAt] : [])),
    );
    const ratio = grantToDeliveryMs.p95 / (grantResponseMs.p95 + baselinePostRoundTripMs.p95);
    const stagesMs = await stagesOf(store, tenantId, queues, delivered);

    const counts: WebhookLatencyResult['counts'] = {
      grantsSent: timings.length,
      grantsAccepted: accepted.length,
      grantsRefused: timings.length - accepted.length,
      deliveriesReceived: receipts.length,
      grantsDeliveredOnce: deliveredOnce,
      grantsNotDelivered: notDelivered,
      duplicateDeliveries: duplicates,
      unexpectedDeliveries: unexpected,
      attemptsRecordedDelivered: attempts.filter((a) => a.outcome === 'delivered').length,
      attemptsRecorded: attempts.length,
      jobsFailed: jobCounts.failed,
      jobsNotFinished: jobCounts.waiting + jobCounts.prioritized + jobCounts.active + jobCounts.delayed,
      baselineSent: baseline.length,
      baselineAnswered204: baseline.filter((b) => b.status === 204).length,
      baselineReceived: baselineReceipts.length,
      serviceWarnings: serviceLog.warnings,
    };
    const nothingLost =
      counts.grantsRefused === 0 &&
      counts.grantsNotDelivered === 0 &&
      counts.duplicateDeliveries === 0 &&
      counts.unexpectedDeliveries === 0 &&
      counts.grantsDeliveredOnce === counts.grantsSent &&
      counts.attemptsRecordedDelivered === counts.grantsSent &&
      counts.jobsFailed === 0 &&
      counts.jobsNotFinished === 0 &&
      counts.baselineAnswered204 === counts.baselineSent &&
      counts.baselineReceived === counts.baselineSent;
    const lags = timings.map((t) => t.sentAt - t.scheduledAt);
    return {
      grantsPerSecond,
      warmupGrants,
      measuredGrants,
      grantResponseMs,
      grantToDeliveryMs,
      baselinePostRoundTripMs,
      baselinePostToReceiptMs,
      ratio,
      targetP95Ms: TARGET_P95_MS,
      // The target is stated at 100 grants per second: a run at another rate does not meet it.
      targetMet:
        grantsPerSecond >= TARGET_GRANTS_PER_SECOND && nothingLost && grantToDeliveryMs.count === measuredGrants && grantToDeliveryMs.p95 < TARGET_P95_MS,
      counts,
      nothingLost,
      stagesMs,
      deliveredBeforeResponse: delivered.filter((m) => m.timing.respondedAt !== null && (m.receipt as Receipt).receivedAt < m.timing.respondedAt).length,
      eventLoopDelayMs: { p50: loopDelayMs(loopDelay.percentile(50)), p99: loopDelayMs(loopDelay.percentile(99)), max: loopDelayMs(loopDelay.max) },
      serviceThreadUtilization: utilization,
      storePerGrant:
        storeBefore && storeAfter
          ? { appends: (storeAfter.appends - storeBefore.appends) / total, transactions: (storeAfter.transactions - storeBefore.transactions) / total }
          : null,
      processCpuCores: (cpu.user + cpu.system) / 1e3 / wallMs,
      maxSendLagMs: Math.max(...lags),
      firstWarnings: serviceLog.first,
    };
  } finally {
    agent.destroy();
    await driver?.close();
    await app?.close();
    const deleted = await deleteRedisKeys(redisUrl, prefix);
    rmSync(dataDir, { recursive: true, force: true });
    log(`webhook latency: service closed, ${deleted} Redis keys under ${prefix} and ${dataDir} removed`);
  }
}

/**
 * Where a measured grant's time goes, from stamps the service leaves anyway:
 * the grant's recordedAt (command start) and its commit time in the store,
 * the delivery job's added and started times in BullMQ, and the receipt.
 * Stamps of the service are Date.now() of the main thread, the others the
 * high-resolution clock of the driver's thread: differences across the two
 * are good to about a millisecond.
 */
async function stagesOf(store: EventStore, tenantId: string, queues: QueueRuntime, delivered: Stamped[]): Promise<Record<string, LatencySummary>> {
  const jobs = await queues.queue(webhookDeliveriesQueue.name).getJobs(['completed'], 0, -1);
  const jobByConsent = new Map(jobs.map((job) => [((job.data as WebhookJob).message.data as GrantNotification).redec_consent_id, job]));
  const rows: Array<Record<string, number>> = [];
  for (const { timing, receipt } of delivered) {
    const consentId = timing.redecConsentId as string;
    const job = jobByConsent.get(consentId);
    const [grant] = await store.readStream(redecStreams.consent(tenantId, consentId), { maxCount: 1 });
    if (!job || !grant || job.processedOn === undefined || timing.respondedAt === null || receipt === undefined) continue;
    const recordedAt = grant.metadata.recordedAt;
    rows.push({
      'request due -> command start (recordedAt)': recordedAt - timing.scheduledAt,
      'command start -> grant written (store created)': grant.created - recordedAt,
      'grant written -> 201 at client': timing.respondedAt - grant.created,
      'grant written -> delivery job added': job.timestamp - grant.created,
      'job added -> job started by a worker': job.processedOn - job.timestamp,
      'job started -> body at receiver': receipt.receivedAt - job.processedOn,
    });
  }
  return Object.fromEntries(Object.keys(rows[0] ?? {}).map((stage) => [stage, summarize(rows.map((row) => row[stage]))]));
}

interface BaselinePost {
  scheduledAt: number;
  answeredAt: number | null;
  status: number | null;
  body: string;
}

/**
 * What any delivery costs at least: the same body, signed with the
 * endpoint's secret for the attempt's timestamp as a delivery is, its
 * address resolved and checked as a delivery does, POSTed by the service's
 * own `postToAddress` from the service's thread, open loop at the same rate.
 */
async function postBaseline(url: string, secret: string, bodies: string[], intervalMs: number): Promise<BaselinePost[]> {
  const results: BaselinePost[] = new Array(bodies.length);
  const inFlight: Array<Promise<void>> = [];
  const post = async (index: number, scheduledAt: number) => {
    const body = bodies[index];
    const messageId = (JSON.parse(body) as { id: string }).id;
    try {
      const headers = webhookHeaders([secret], messageId, Math.floor(Date.now() / 1000), body);
      const [address] = await resolveDeliveryAddresses(url, { allowPrivateNetworks: true });
      const { status } = await postToAddress(url, address, { ...headers }, body, AbortSignal.timeout(15_000));
      results[index] = { scheduledAt, answeredAt: preciseNow(), status, body };
    } catch {
      results[index] = { scheduledAt, answeredAt: null, status: null, body };
    }
  };
  const start = preciseNow() + 20;
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      while (next < bodies.length && start + next * intervalMs <= preciseNow()) {
        inFlight.push(post(next, start + next * intervalMs));
        next += 1;
      }
      if (next >= bodies.length) done();
      else setTimeout(tick, Math.max(0, start + next * intervalMs - preciseNow()));
    };
    setTimeout(tick, 20);
  });
  await Promise.all(inFlight);
  return results;
}

/** The driver thread (bench/webhook-latency.driver.ts): the grants' client and the receiver. */
class Driver {
  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(): Promise<Driver> {
    // Compiled, the driver is a .js beside this file. Under ts-node the thread registers ts-node itself
    // (the `npx ts-node` binary's own execArgv means nothing to a worker); the driver needs no path aliases.
    const extension = extname(__filename);
    const worker = new Worker(join(__dirname, `webhook-latency.driver${extension}`), {
      execArgv: extension === '.ts' ? ['--require', 'ts-node/register/transpile-only'] : undefined,
    });
    const { url } = await Driver.reply(worker, 'ready');
    return new Driver(worker, url);
  }

  async drive(message: Omit<Extract<DriverRequest, { type: 'drive' }>, 'type'>): Promise<GrantTiming[]> {
    return (await this.ask({ type: 'drive', ...message }, 'driven')).timings;
  }

  async count(): Promise<number> {
    return (await this.ask({ type: 'count' }, 'count')).received;
  }

  /** The receipts since the last call, and a fresh count. */
  async takeReceipts(): Promise<Receipt[]> {
    return (await this.ask({ type: 'take-receipts' }, 'receipts')).receipts;
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.ask({ type: 'close' }, 'closed'), sleep(5_000)]);
    } finally {
      await this.worker.terminate();
    }
  }

  private ask<T extends DriverReply['type']>(message: DriverRequest, type: T): Promise<Extract<DriverReply, { type: T }>> {
    const replied = Driver.reply(this.worker, type);
    this.worker.postMessage(message);
    return replied;
  }

  private static reply<T extends DriverReply['type']>(worker: Worker, type: T): Promise<Extract<DriverReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (reply: DriverReply) => {
        if (reply.type !== type) return;
        cleanup();
        resolve(reply as Extract<DriverReply, { type: T }>);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new Error(`the driver thread exited (code ${code}) while waiting for "${type}"`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  }
}

/** The service's JSON log lines are counted, not kept: warnings and errors are reported, the first few quoted. */
class ServiceLogSink extends Writable {
  warnings = 0;
  readonly first: string[] = [];
  private partial = '';

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const lines = (this.partial + String(chunk)).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const level = /"level":(\d+)/.exec(line);
      if (level && Number(level[1]) >= 40) {
        this.warnings += 1;
        if (this.first.length < 5) this.first.push(line.slice(0, 500));
      }
    }
    done();
  }
}

type Api = (method: string, path: string, body?: unknown, apiKey?: string) => Promise<{ status: number; body: unknown }>;

/** JSON over the service's real HTTP port, for the preparation (outside the clock). */
function httpClient(agent: Agent, baseUrl: string): Api {
  return (method, path, body, apiKey) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = {};
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const outgoing = request(`${baseUrl}${path}`, { method, agent, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? null : JSON.parse(text);
          } catch {
            // Kept as text.
          }
          resolve({ status: answer.statusCode ?? 0, body: parsed });
        });
      });
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
}

function consentIdOf(body: string): string {
  try {
    return String((JSON.parse(body) as { data: { redec_consent_id: string } }).data.redec_consent_id);
  } catch {
    return `(unparsable body: ${body.slice(0, 40)})`;
  }
}

/** The SQLite store's counters (SqliteEventStore.stats()); null for a store without them. */
function storeStats(store: EventStore): { appends: number; transactions: number } | null {
  return store instanceof SqliteEventStore ? store.stats() : null;
}

/** Waits until neither the deliveries nor the certificates have a job left to run. */
async function waitForIdleQueues(queues: QueueRuntime, timeoutMs: number): Promise<void> {
  const names = [webhookDeliveriesQueue.name, consentCertificatesQueue.name];
  await waitUntil(
    async () => {
      const counts = await Promise.all(names.map((name) => queues.queue(name).getJobCounts('waiting', 'prioritized', 'active')));
      return counts.every((c) => c.waiting + c.prioritized + c.active === 0);
    },
    timeoutMs,
    null,
  );
}

async function mapConcurrently<T>(count: number, concurrency: number, make: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await make(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

/** Resolves true once `condition` holds; after `timeoutMs` throws when `what` names the wait, else resolves false. */
async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string | null): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) {
      if (what !== null) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      return false;
    }
    await sleep(25);
  }
}

async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = createRedis(redisUrl, 'bench-cleanup', { maxRetriesPerRequest: 3 });
  try {
    return await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/** Nearest-rank percentiles, in milliseconds. */
export function summarize(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: rank(0.5),
    p95: rank(0.95),
    p99: rank(0.99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1],
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** The monitor's figures (ns) include its own timer period. */
const loopDelayMs = (nanoseconds: number): number => Math.max(0, nanoseconds / 1e6 - LOOP_DELAY_RESOLUTION_MS);
const preciseNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
