import { join } from 'node:path';
import { FuzzResponse, send } from './client';
import { FuzzRequest, generateRequest, requestName } from './generate';
import { LedgerFile, isBookkeeping } from './ledger-file';
import { LeakDetector, leakDetector, leaksInAnswer } from './leaks';
import { PUBLIC_PAGES, operationsOf } from './operations';
import { randomFor } from './random';
import { largeUploads } from './large-uploads';
import { seed } from './seed';
import { Expected } from './values';
import { RunningService, serviceEnvironment, startService } from './service';

/**
 * One fuzzing run: the built service started on a ledger of its own, seeded,
 * then `requests` requests generated from its OpenAPI description, one at a
 * time, each checked for a 5xx or no answer, a secret or identifier in the
 * answer, a fact recorded by a refused request, and the service's RSS;
 * finally its log is checked for secrets too.
 */
export interface FuzzOptions {
  /** The repository root, holding the build in dist/. */
  root: string;
  seed: number;
  requests: number;
  /** Send only these requests of the seed (a replay). */
  only?: number[];
  rssLimitBytes: number;
  timeoutMs: number;
  progress(line: string): void;
}

export type FailureKind =
  | '5xx'
  | 'no answer'
  | 'leak in an answer'
  | 'leak in the log'
  | 'fact recorded by a refused request'
  | 'RSS above the limit'
  | 'promised refusal missing'
  | 'valid upload refused';

export interface Failure {
  kind: FailureKind;
  /** The HTTP status, or the client's word when there was none. */
  status: string;
  /** The request that caused it; none for a log line no request wrote. */
  request?: FuzzRequest;
  /** What went wrong, secrets masked: the labels that leaked, the facts recorded, the RSS reached. */
  detail: string;
}

export interface FuzzResult {
  seed: number;
  requestsSent: number;
  /** The large evidence uploads sent at once after them (none in a replay). */
  largeUploadsSent: number;
  operations: number;
  histogram: Record<string, number>;
  serverErrors: number;
  noAnswers: number;
  leaksInAnswers: number;
  leaksInLog: number;
  factsFromRefusedRequests: number;
  /** Requests the API description promises a refusal (status and reason) that were answered otherwise. */
  promisedRefusalsMissing: number;
  peakRssBytes: number;
  rssLimitBytes: number;
  seconds: number;
  failures: Failure[];
  /** Replaces every secret and RUT in a text by its label: what the report prints of requests and answers. */
  mask(text: string): string;
}

/** What `npm run fuzz` runs unless told otherwise; the suite in `npm test` sends the first 1,000 requests of the same seed. */
export const FUZZ_DEFAULTS = {
  seed: 13,
  requests: 10_000,
  /** The issue's bound: the service must stay under it whatever it is sent. */
  rssLimitBytes: 400 << 20,
  /** Far above any honest answer; a request still open then is a failure. */
  timeoutMs: 30_000,
};

/** The seeding's own random stream, apart from every request's. */
const SEEDING_STREAM = 0xffffffff;
/** The large uploads' own random stream. */
const LARGE_UPLOADS_STREAM = 0xfffffffe;
const RSS_SAMPLE_MS = 100;

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now();
  const environment = await serviceEnvironment();
  let service: RunningService | undefined;
  let ledger: LedgerFile | undefined;
  try {
    options.progress('starting the built service');
    service = await startService(options.root, environment);
    options.progress('seeding two tenants through the operator CLI and the API');
    const seeded = await seed(options.root, environment, service.baseUrl, randomFor(options.seed, SEEDING_STREAM));
    const detector = leakDetector(seeded.secrets, seeded.ruts);
    const operations = [...operationsOf((await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as object), ...operationsOf(PUBLIC_PAGES)];
    ledger = new LedgerFile(join(environment.dataDir, 'ledger.sqlite'));

    const failures: Failure[] = [];
    const histogram: Record<string, number> = {};
    const sent = new Map<string, FuzzRequest>();
    const rss = watchRss(service, options.rssLimitBytes);
    const indexes = options.only ?? Array.from({ length: options.requests }, (_, i) => i);
    let largeUploadsSent = 0;
    options.progress(`sending ${indexes.length} requests to ${operations.length} operations, seed ${options.seed}`);
    try {
      for (const [n, index] of indexes.entries()) {
        const request = generateRequest(operations, seeded.context, options.seed, index, Date.now());
        sent.set(requestName(options.seed, index), request);
        rss.starting(request);
        const before = ledger.head();
        const response = await send(service.baseUrl, request, options.timeoutMs);
        rss.answered();
        histogram[String(response.status)] = (histogram[String(response.status)] ?? 0) + 1;
        failures.push(...check(request, response, detector, ledger, before));
        if ((n + 1) % 1000 === 0) options.progress(`${n + 1} requests sent, ${failures.length} failures so far`);
      }
      // A replay sends only the requests it names.
      if (options.only === undefined) {
        const uploads = largeUploads(seeded.context, options.seed, randomFor(options.seed, LARGE_UPLOADS_STREAM));
        options.progress(`sending ${uploads.length} large evidence uploads at once`);
        largeUploadsSent = uploads.length;
        for (const request of uploads) {
          sent.set(requestName(options.seed, request.index), request);
          rss.starting(request);
        }
        const answers = await Promise.all(uploads.map((request) => send(service!.baseUrl, request, options.timeoutMs)));
        rss.answered();
        uploads.forEach((request, i) => {
          histogram[String(answers[i].status)] = (histogram[String(answers[i].status)] ?? 0) + 1;
          failures.push(...checkLargeUpload(request, answers[i], detector));
        });
      }
    } finally {
      rss.stop();
    }
    const rssFailure = rss.failure();
    if (rssFailure) failures.push(rssFailure);
    await service.stop();
    failures.push(...logLeaks(service.output(), detector, sent));
    const count = (kind: FailureKind) => failures.filter((f) => f.kind === kind).length;
    return {
      seed: options.seed,
      requestsSent: indexes.length,
      largeUploadsSent,
      operations: operations.length,
      histogram,
      serverErrors: count('5xx'),
      noAnswers: count('no answer'),
      leaksInAnswers: count('leak in an answer'),
      leaksInLog: count('leak in the log'),
      factsFromRefusedRequests: count('fact recorded by a refused request'),
      promisedRefusalsMissing: count('promised refusal missing'),
      peakRssBytes: rss.peak,
      rssLimitBytes: options.rssLimitBytes,
      seconds: Math.round((Date.now() - started) / 1000),
      failures,
      mask: detector.mask,
    };
  } finally {
    ledger?.close();
    await service?.stop();
    await environment.dispose();
  }
}

/**
 * The checks on one answer. A refused request (4xx, 5xx, no answer) may
 * leave Idempotency-Key bookkeeping and nothing else; a request the API
 * description promises a refusal must get that status and reason.
 */
export function check(request: FuzzRequest, response: FuzzResponse, detector: LeakDetector, ledger: Pick<LedgerFile, 'factsAfter'>, headBefore: number): Failure[] {
  const failures: Failure[] = [];
  const status = String(response.status);
  if (typeof response.status === 'number' && response.status >= 500) {
    failures.push({ kind: '5xx', status, request, detail: `answer: ${abbreviate(detector.mask(response.body.toString('utf8')))}` });
  }
  if (response.status === 'no answer') failures.push({ kind: 'no answer', status, request, detail: response.error ?? '' });
  if (request.expected && !answersAsPromised(response, request.expected)) {
    const promised = `${request.expected.status}${request.expected.reason ? ` ${request.expected.reason}` : ''}`;
    failures.push({ kind: 'promised refusal missing', status, request, detail: `promised ${promised}, answer: ${abbreviate(detector.mask(response.body.toString('utf8')))}` });
  }
  const leaks = leaksInAnswer(detector, request, response);
  if (leaks.length > 0) failures.push({ kind: 'leak in an answer', status, request, detail: leaks.map((leak) => `${leak.label} in ${leak.where}`).join('; ') });
  const refused = typeof response.status !== 'number' || response.status >= 400;
  if (refused) {
    const facts = ledger.factsAfter(headBefore).filter((fact) => !isBookkeeping(fact));
    if (facts.length > 0) failures.push({ kind: 'fact recorded by a refused request', status, request, detail: facts.map((f) => `${f.type} in ${f.streamId.split('-')[0]}-…`).join(', ') });
  }
  return failures;
}

/**
 * The checks on one of the large uploads sent at once: an answer, no 5xx
 * but 503 SERVICE_BUSY with Retry-After, no leak, and, unless the service
 * was busy, the refusal promised to text that is not base64 and no such
 * refusal (nor 413) of text that is; the grant's other rules may refuse it.
 * Facts are not compared: the uploads run together.
 */
export function checkLargeUpload(request: FuzzRequest, response: FuzzResponse, detector: LeakDetector): Failure[] {
  const failures: Failure[] = [];
  const status = String(response.status);
  const answer = () => `answer: ${abbreviate(detector.mask(response.body.toString('utf8')))}`;
  if (response.status === 'no answer') failures.push({ kind: 'no answer', status, request, detail: response.error ?? '' });
  const busy = response.status === 503 && problemOf(response)?.code === 'SERVICE_BUSY' && response.headers['retry-after'] !== undefined;
  if (typeof response.status === 'number' && response.status >= 500 && !busy) failures.push({ kind: '5xx', status, request, detail: answer() });
  if (typeof response.status === 'number' && !busy) {
    if (request.expected && !answersAsPromised(response, request.expected)) failures.push({ kind: 'promised refusal missing', status, request, detail: answer() });
    if (!request.expected && (response.status === 413 || refusesAsNotBase64(response))) failures.push({ kind: 'valid upload refused', status, request, detail: answer() });
  }
  const leaks = leaksInAnswer(detector, request, response);
  if (leaks.length > 0) failures.push({ kind: 'leak in an answer', status, request, detail: leaks.map((leak) => `${leak.label} in ${leak.where}`).join('; ') });
  return failures;
}

/** A 400 whose reason, or one of whose field errors, is `invalid_base64`: other refusals (the channel's evidence kinds, say) are the grant's own rules. */
function refusesAsNotBase64(response: FuzzResponse): boolean {
  return response.status === 400 && answersAsPromised(response, { status: 400, reason: 'invalid_base64' });
}

function problemOf(response: FuzzResponse): { code?: unknown; reason?: unknown; errors?: Array<{ reason?: unknown }> } | undefined {
  try {
    return JSON.parse(response.body.toString('utf8')) as { code?: unknown };
  } catch {
    return undefined;
  }
}

/** The promised status, and the promised reason as the problem's own or one of its field errors'. */
function answersAsPromised(response: FuzzResponse, expected: Expected): boolean {
  if (response.status !== expected.status) return false;
  if (expected.reason === undefined) return true;
  const problem = problemOf(response);
  return problem !== undefined && (problem.reason === expected.reason || (problem.errors ?? []).some((error) => error.reason === expected.reason));
}

/** Log lines carrying a secret or RUT, each tied to the request whose id it carries. */
export function logLeaks(log: string, detector: LeakDetector, sent: ReadonlyMap<string, FuzzRequest>): Failure[] {
  const failures: Failure[] = [];
  for (const line of log.split('\n')) {
    const labels = detector.find(line);
    if (labels.length === 0) continue;
    const id = /"requestId":"([^"]+)"/.exec(line)?.[1];
    failures.push({ kind: 'leak in the log', status: 'log', request: id === undefined ? undefined : sent.get(id), detail: `${labels.join(', ')}: ${abbreviate(detector.mask(line))}` });
  }
  return failures;
}

/**
 * Samples the service's RSS every 100 ms and around every request. Above the
 * limit at any sample fails the run, naming the request in flight when it
 * first was; since memory a request takes may stay taken, the detail also
 * names the requests after which RSS rose most.
 */
function watchRss(service: RunningService, limitBytes: number) {
  let firstAbove: { rss: number; request?: FuzzRequest } | undefined;
  let inFlight: { request: FuzzRequest; rssBefore: number } | undefined;
  const rises: Array<{ request: FuzzRequest; bytes: number }> = [];
  const watch = {
    peak: 0,
    sample(): number {
      const rss = service.rss();
      watch.peak = Math.max(watch.peak, rss);
      if (rss > limitBytes && !firstAbove) firstAbove = { rss, request: inFlight?.request };
      return rss;
    },
    starting(request: FuzzRequest) {
      inFlight = { request, rssBefore: watch.sample() };
    },
    answered() {
      const rss = watch.sample();
      if (inFlight) rises.push({ request: inFlight.request, bytes: rss - inFlight.rssBefore });
      rises.sort((a, b) => b.bytes - a.bytes).splice(3);
    },
    failure(): Failure | undefined {
      if (!firstAbove) return undefined;
      const largest = rises.map(({ request, bytes }) => `#${request.index} +${megabytes(bytes)} (${request.strategy}, ${request.operation})`).join(', ');
      return {
        kind: 'RSS above the limit',
        status: 'rss',
        request: firstAbove.request,
        detail: `${megabytes(firstAbove.rss)} first during or right after this request, peak ${megabytes(watch.peak)} (limit ${megabytes(limitBytes)}); largest rises: ${largest}`,
      };
    },
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => watch.sample(), RSS_SAMPLE_MS);
  return watch;
}

export const megabytes = (bytes: number): string => `${Math.round(bytes / (1 << 20))} MB`;

function abbreviate(text: string, length = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length)}… (${line.length} characters)` : line;
}
