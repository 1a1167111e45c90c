import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join, resolve } from 'node:path';
import { customerResolution, expectStatus, redecConfiguration } from './fixtures';
import { RunningService, rssMb, runSync, startService } from './http.bench';

/**
 * Issue 32, item 2: one tenant sends many large evidence uploads at once
 * (15 MB bodies, base64 audio in a grant, 20 and then 64 in parallel) while
 * another tenant reads its consent. Measured on the built service as `npm
 * start` runs it, with the default LEDGER_MAX_BODY_BYTES_IN_FLIGHT unless
 * BENCH_BODIES_MAX_BYTES_IN_FLIGHT says otherwise:
 *
 * - the other tenant's reads, alone (the baseline) and during the uploads:
 *   p50, p99 and the slowest, and p99 as a ratio to the baseline's;
 * - the service's resident memory: after start, and its peak (VmHWM) over
 *   each burst;
 * - the uploads: how many were answered 201 at once and how many 503 (with
 *   Retry-After); the uploading client retries each 503 after Retry-After,
 *   as a client should, until every upload is granted; each grant answered
 *   201 is then read back, so an acknowledged grant that went missing fails
 *   the run.
 */
const MB = 1024 * 1024;
const UPLOAD_BASE64_BYTES = 15 * MB;
const BURSTS = (process.env.BENCH_BODIES_BURSTS ?? '20,64').split(',').map(Number);
const BASELINE_MS = 5_000;
const READERS = 4;
const ROOT = resolve(__dirname, '../..');
const DIST = join(ROOT, 'dist');

export const TARGET_PEAK_RSS_MB = 400;
export const TARGET_OTHER_TENANT_SLOWEST_READ_MS = 200;

export interface ReadFigures {
  reads: number;
  p50Ms: number;
  p99Ms: number;
  slowestMs: number;
}

export interface BurstFigures {
  uploads: number;
  grantedAtOnce: number;
  refused503: number;
  retries: number;
  otherStatuses: number[];
  allGranted: boolean;
  everyGrantReadBack: boolean;
  seconds: number;
  peakRssMb: number;
  reads: ReadFigures;
  readP99Ratio: number;
}

export interface BodiesInFlightResult {
  maxBytesInFlight: string;
  rssAfterStartMb: number;
  baseline: ReadFigures;
  bursts: BurstFigures[];
  failed: boolean;
}

export async function runBodiesInFlightBench(log: (line: string) => void): Promise<BodiesInFlightResult> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const maxBytes = process.env.BENCH_BODIES_MAX_BYTES_IN_FLIGHT;
  const service = await startService({ redisUrl, env: maxBytes ? { LEDGER_MAX_BODY_BYTES_IN_FLIGHT: maxBytes } : {} });
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  try {
    const pid = service.process.pid!;
    const uploader = tenantApi(service.baseUrl, service.apiKey, agent);
    const reader = tenantApi(service.baseUrl, otherTenantKey(service), agent);
    const readPath = `/v1/redec/consents/${await seedReadableConsent(reader)}`;
    const phone = await publishConfiguration(uploader, 'phone');
    const rssAfterStartMb = rssMb(pid);
    log(`bodies-in-flight: service RSS after start and seeding ${rssAfterStartMb.toFixed(0)} MB`);

    const baseline = await readWhile(reader, readPath, delay(BASELINE_MS));
    log(`bodies-in-flight: baseline reads p50 ${baseline.p50Ms.toFixed(1)} ms, p99 ${baseline.p99Ms.toFixed(1)} ms`);
    // One 11 MB recording shared by every upload; each upload's first bytes differ, so every grant holds a blob of its own.
    const recordingTail = Buffer.from(randomBytes(UPLOAD_BASE64_BYTES * 0.75).toString('base64').slice(4));

    // Every route the bursts take, warmed once (code loaded, caches filled) before anything is measured.
    await grantUntilAccepted(uploader, await uploader.openInteraction(phone), recordingTail);

    const bursts: BurstFigures[] = [];
    for (const uploads of BURSTS) {
      const interactions = await Promise.all(Array.from({ length: uploads }, async () => uploader.openInteraction(phone)));
      resetPeakMemory(pid);
      const started = performance.now();
      const sending = Promise.all(interactions.map((interactionId) => grantUntilAccepted(uploader, interactionId, recordingTail)));
      const reads = await readWhile(reader, readPath, sending);
      const outcomes = await sending;
      const seconds = (performance.now() - started) / 1000;
      const peakRssMb = peakMemoryMb(pid);
      const granted = outcomes.filter((o) => o.redecConsentId !== undefined);
      const readBack = await Promise.all(granted.map(async (o) => (await uploader.call('GET', `/v1/redec/consents/${o.redecConsentId}`)).status === 200));
      const figures: BurstFigures = {
        uploads,
        grantedAtOnce: outcomes.filter((o) => o.statuses[0] === 201).length,
        refused503: outcomes.reduce((n, o) => n + o.statuses.filter((s) => s === 503).length, 0),
        retries: outcomes.reduce((n, o) => n + o.statuses.length - 1, 0),
        otherStatuses: outcomes.flatMap((o) => o.statuses.filter((s) => s !== 201 && s !== 503)),
        allGranted: granted.length === uploads,
        everyGrantReadBack: readBack.every(Boolean),
        seconds,
        peakRssMb,
        reads,
        readP99Ratio: reads.p99Ms / baseline.p99Ms,
      };
      log(
        `bodies-in-flight: ${uploads} uploads of 15 MB: ${figures.grantedAtOnce} granted at once, ${figures.refused503} answers 503, all granted ${figures.allGranted} in ${seconds.toFixed(1)} s; ` +
          `peak RSS ${peakRssMb.toFixed(0)} MB; other tenant's reads p99 ${reads.p99Ms.toFixed(1)} ms, slowest ${reads.slowestMs.toFixed(1)} ms`,
      );
      bursts.push(figures);
    }
    const failed = bursts.some((b) => !b.allGranted || !b.everyGrantReadBack || b.otherStatuses.length > 0);
    return { maxBytesInFlight: maxBytes ?? 'default', rssAfterStartMb, baseline, bursts, failed };
  } finally {
    agent.destroy();
    await service.stop();
  }
}

interface TenantApi {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }>;
  openInteraction(configurationId: string): Promise<string>;
  baseUrl: string;
  apiKey: string;
  agent: Agent;
}

function tenantApi(baseUrl: string, apiKey: string, agent: Agent): TenantApi {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, any>) };
  };
  const customers = async () => {
    const resolved = await call('POST', '/v1/customers/resolve', customerResolution(Math.floor(Math.random() * 30_000_000) + 1_000_000));
    return expectStatus(201, resolved, 'resolve').customerId as string;
  };
  return {
    call,
    baseUrl,
    apiKey,
    agent,
    async openInteraction(configurationId) {
      const opened = await call('POST', '/v1/redec/consent-interactions', { configurationId, customerId: await customers() });
      return expectStatus(201, opened, 'interaction').interactionId as string;
    },
  };
}

/** A second tenant and its key, minted with the operator CLI beside the service. */
function otherTenantKey(service: RunningService): string {
  const cli = (args: string[]) => JSON.parse(runSync(process.execPath, [join(DIST, 'apps/cli/src/main.js'), ...args], service.env)) as Record<string, string>;
  const { tenantId } = cli(['tenant', 'create', '--name', 'Banco Lector']);
  return cli(['key', 'issue', '--tenant', tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:identity-assert']).apiKey;
}

async function publishConfiguration(api: TenantApi, channel: 'digital' | 'phone'): Promise<string> {
  return expectStatus(201, await api.call('POST', '/v1/configurations', redecConfiguration(`bench-bodies-${channel}`, channel)), 'configuration').configurationId as string;
}

async function seedReadableConsent(api: TenantApi): Promise<string> {
  const interactionId = await api.openInteraction(await publishConfiguration(api, 'digital'));
  const granted = await api.call('POST', `/v1/redec/consent-interactions/${interactionId}/grant`, {
    occurredAt: Date.now() - 60_000,
    sourceSystem: 'bench',
    sourceReference: `cap-${randomUUID()}`,
    evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-1' } },
  });
  return expectStatus(201, granted, 'grant').redecConsentId as string;
}

interface UploadOutcome {
  statuses: number[];
  redecConsentId?: string;
}

/** A grant with 15 MB of base64 audio, sent again after Retry-After while it is answered 503. */
async function grantUntilAccepted(api: TenantApi, interactionId: string, recordingTail: Buffer): Promise<UploadOutcome> {
  const occurredAt = Date.now() - 60_000;
  const head = JSON.stringify({ occurredAt, sourceSystem: 'pbx', sourceReference: `call-${randomUUID()}`, evidence: { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', contentBase64: '@' } });
  const [before, after] = head.split('"@"');
  const parts = [Buffer.from(`${before}"${randomBytes(3).toString('base64')}`), recordingTail, Buffer.from(`"${after}`)];
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answer = await postParts(api, `/v1/redec/consent-interactions/${interactionId}/grant`, parts);
    statuses.push(answer.status);
    if (answer.status === 201) return { statuses, redecConsentId: (JSON.parse(answer.body) as { redecConsentId: string }).redecConsentId };
    if (answer.status !== 503) return { statuses };
    await delay(Number(answer.retryAfter ?? 1) * 1000);
  }
  return { statuses };
}

/** A POST whose body is written from buffers the benchmark holds once, so 64 uploads cost the client no 64 copies. */
function postParts(api: TenantApi, path: string, parts: Buffer[]): Promise<{ status: number; body: string; retryAfter?: string }> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const url = new URL(path, api.baseUrl);
  return new Promise((resolveAnswer, reject) => {
    let answered = false;
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: api.agent,
        // As curl does for a large body: the service refuses before the body is sent, or asks for it.
        headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json', 'content-length': length, expect: '100-continue' },
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolveAnswer({ status: response.statusCode!, body: Buffer.concat(chunks).toString(), retryAfter: response.headers['retry-after'] }));
      },
    );
    sent.on('error', (error) => {
      if (!answered) reject(error);
    });
    sent.on('continue', () => {
      for (const part of parts) sent.write(part);
      sent.end();
    });
  });
}

/** The other tenant's reads, READERS at a time, until `until` settles. */
async function readWhile(api: TenantApi, path: string, until: Promise<unknown>): Promise<ReadFigures> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      while (!done) {
        const started = performance.now();
        const answer = await api.call('GET', path);
        if (answer.status !== 200) throw new Error(`bodies-in-flight: a read was answered ${answer.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { reads: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), slowestMs: latencies[latencies.length - 1] };
}

function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function peakMemoryMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
