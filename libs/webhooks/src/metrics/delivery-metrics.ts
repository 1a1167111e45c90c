import { MetricFamily, histogramSamples } from './exposition';
import type { RedisClient } from '@ledger/platform';

/**
 * Webhook delivery metrics (issue 5). The API and the workers may be
 * separate processes (apps/worker has no HTTP port), so the counts live in
 * Redis, in one hash under the service's prefix, incremented by whichever
 * process made the attempt and read by the API's `GET /metrics`. They are
 * aggregates over every tenant and endpoint: no field names a tenant, an
 * endpoint, a message or a URL.
 *
 * Hash `<prefix>:metrics:webhook-deliveries`, every field an integer:
 *
 *   outcome:<delivered|failed|skipped>        attempts by outcome
 *   status:<2xx|3xx|4xx|5xx|none|...>         attempts that called the receiver, by status class
 *   delivery_latency:bucket:<ms|+Inf>         delivered attempts, fact recorded -> attempt, per bucket (NOT cumulative)
 *   delivery_latency:sum_ms
 *   response_time:bucket:<ms|+Inf>            attempts that got an HTTP answer, receiver's response time, per bucket
 *   response_time:sum_ms
 *
 * Buckets are stored one by one (one HINCRBY per observation) and made
 * cumulative when rendered; a histogram's count is the sum of its buckets.
 */

export type DeliveryAttemptOutcome = 'delivered' | 'failed' | 'skipped';

/** What one recorded attempt contributes; the same figures as its `WebhookDeliveryAttempted` fact. */
export interface DeliveryAttemptObservation {
  outcome: DeliveryAttemptOutcome;
  /** The receiver's HTTP status; null when no answer came (or the attempt was skipped). */
  status: number | null;
  /** The receiver's response time; null when it was not called. */
  latencyMs: number | null;
  /** From the fact's recording to this attempt. */
  sinceRecordedMs: number;
}

/** What `deliverWebhook` needs of the metrics: one call per recorded attempt, which never rejects. */
export interface DeliveryMetricsRecorder {
  record(observation: DeliveryAttemptObservation): Promise<void>;
}

export const DELIVERY_OUTCOMES: readonly DeliveryAttemptOutcome[] = ['delivered', 'failed', 'skipped'];
/** Always rendered, at 0 when nothing was counted, so that the series exist from the start. */
export const STATUS_CLASSES: readonly string[] = ['2xx', '3xx', '4xx', '5xx', 'none'];
/** Upper bounds (inclusive, ms) of both histograms' buckets; `+Inf` follows. */
export const LATENCY_BUCKETS_MS: readonly number[] = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000];

type HistogramName = 'delivery_latency' | 'response_time';

/** How long a metric write may hold up a delivery before it is given up (and logged). */
const DEFAULT_RECORD_TIMEOUT_MS = 1_000;

export function deliveryMetricsKey(prefix: string): string {
  return `${prefix}:metrics:webhook-deliveries`;
}

/** `2xx`, `4xx`...; `none` when no answer came; `other` for a status outside 100-599. */
export function statusClass(status: number | null): string {
  if (status === null) return 'none';
  return Number.isInteger(status) && status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : 'other';
}

/** The bucket of a value: the first bound it does not exceed (Prometheus' `le`), or `bounds.length` for `+Inf`. */
export function bucketIndex(valueMs: number, bounds: readonly number[] = LATENCY_BUCKETS_MS): number {
  const index = bounds.findIndex((bound) => valueMs <= bound);
  return index === -1 ? bounds.length : index;
}

function bucketField(histogram: HistogramName, index: number): string {
  return `${histogram}:bucket:${index < LATENCY_BUCKETS_MS.length ? LATENCY_BUCKETS_MS[index] : '+Inf'}`;
}

/** The hash fields one attempt increments, and by how much. */
export function attemptIncrements(observation: DeliveryAttemptObservation): Array<[field: string, by: number]> {
  const { outcome, status, latencyMs, sinceRecordedMs } = observation;
  const increments: Array<[string, number]> = [[`outcome:${outcome}`, 1]];
  // A skipped attempt never called the receiver: it has no status class, not even `none`.
  if (outcome !== 'skipped') increments.push([`status:${statusClass(status)}`, 1]);
  if (outcome === 'delivered') increments.push(...observe('delivery_latency', sinceRecordedMs));
  if (status !== null && latencyMs !== null) increments.push(...observe('response_time', latencyMs));
  return increments;
}

function observe(histogram: HistogramName, ms: number): Array<[string, number]> {
  if (!Number.isFinite(ms)) return [];
  // Clocks of two processes may disagree by a little: a negative delay counts as none.
  const value = Math.max(0, Math.round(ms));
  return [
    [bucketField(histogram, bucketIndex(value)), 1],
    [`${histogram}:sum_ms`, value],
  ];
}

export interface HistogramCounts {
  /** Observations per bucket, NOT cumulative; one more than the bounds (`+Inf`). */
  perBucket: number[];
  sumMs: number;
}

/** The hash as numbers. */
export interface DeliveryMetricsSnapshot {
  outcomes: Record<string, number>;
  statusClasses: Record<string, number>;
  deliveryLatency: HistogramCounts;
  responseTime: HistogramCounts;
}

export function parseDeliveryMetrics(hash: Readonly<Record<string, string>>): DeliveryMetricsSnapshot {
  const count = (field: string) => {
    const value = Number(hash[field] ?? 0);
    return Number.isFinite(value) ? value : 0;
  };
  const withPrefix = (prefix: string, always: readonly string[]) => {
    const names = new Set([...always, ...Object.keys(hash).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length))]);
    return Object.fromEntries([...names].map((name) => [name, count(`${prefix}${name}`)]));
  };
  const histogram = (name: HistogramName): HistogramCounts => ({
    perBucket: Array.from({ length: LATENCY_BUCKETS_MS.length + 1 }, (_, index) => count(bucketField(name, index))),
    sumMs: count(`${name}:sum_ms`),
  });
  return {
    outcomes: withPrefix('outcome:', DELIVERY_OUTCOMES),
    statusClasses: withPrefix('status:', STATUS_CLASSES),
    deliveryLatency: histogram('delivery_latency'),
    responseTime: histogram('response_time'),
  };
}

export const DELIVERY_METRIC_NAMES = {
  attempts: 'ledger_webhook_deliveries_total',
  responses: 'ledger_webhook_delivery_responses_total',
  deliveryLatency: 'ledger_webhook_delivery_latency_seconds',
  responseTime: 'ledger_webhook_receiver_response_seconds',
} as const;

/** The four families `GET /metrics` shows for webhook deliveries. */
export function deliveryMetricFamilies(snapshot: DeliveryMetricsSnapshot): MetricFamily[] {
  const sorted = (record: Record<string, number>, first: readonly string[]) =>
    Object.entries(record).sort(([a], [b]) => rank(a, first) - rank(b, first) || a.localeCompare(b));
  return [
    {
      name: DELIVERY_METRIC_NAMES.attempts,
      help: 'Webhook delivery attempts by outcome: delivered (2xx), failed (any other answer, a timeout or a network error), skipped (endpoint disabled meanwhile).',
      type: 'counter',
      samples: sorted(snapshot.outcomes, DELIVERY_OUTCOMES).map(([outcome, value]) => ({ name: DELIVERY_METRIC_NAMES.attempts, labels: { outcome }, value })),
    },
    {
      name: DELIVERY_METRIC_NAMES.responses,
      help: 'Webhook delivery attempts that called the receiver, by class of its HTTP status; none when no answer came (timeout, network error, refused address).',
      type: 'counter',
      samples: sorted(snapshot.statusClasses, STATUS_CLASSES).map(([status_class, value]) => ({ name: DELIVERY_METRIC_NAMES.responses, labels: { status_class }, value })),
    },
    {
      name: DELIVERY_METRIC_NAMES.deliveryLatency,
      help: "Seconds from a fact's recording to its successful delivery (delivered attempts only, so retries' waits included).",
      type: 'histogram',
      samples: histogramSamples(DELIVERY_METRIC_NAMES.deliveryLatency, LATENCY_BUCKETS_MS, { perBucket: snapshot.deliveryLatency.perBucket, sum: snapshot.deliveryLatency.sumMs }, 1000),
    },
    {
      name: DELIVERY_METRIC_NAMES.responseTime,
      help: 'Seconds receivers took to answer a delivery attempt (attempts that got an HTTP status).',
      type: 'histogram',
      samples: histogramSamples(DELIVERY_METRIC_NAMES.responseTime, LATENCY_BUCKETS_MS, { perBucket: snapshot.responseTime.perBucket, sum: snapshot.responseTime.sumMs }, 1000),
    },
  ];
}

function rank(name: string, first: readonly string[]): number {
  const index = first.indexOf(name);
  return index === -1 ? first.length : index;
}

export interface WebhookDeliveryMetricsOptions {
  redis: RedisClient;
  /** LEDGER_REDIS_PREFIX. */
  prefix: string;
  /** How long `record` waits for Redis before giving up (1000 ms). */
  timeoutMs?: number;
  /** Where a failed write is reported; stderr by default. */
  log?: (message: string) => void;
}

/** Records attempts into, and reads them back from, the shared hash. */
export class WebhookDeliveryMetrics implements DeliveryMetricsRecorder {
  readonly key: string;
  private readonly timeoutMs: number;
  private readonly log: (message: string) => void;

  constructor(private readonly options: WebhookDeliveryMetricsOptions) {
    this.key = deliveryMetricsKey(options.prefix);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RECORD_TIMEOUT_MS;
    this.log = options.log ?? ((message) => process.stderr.write(`webhook delivery metrics: ${message}\n`));
  }

  /**
   * One MULTI per attempt, so a scrape never sees half an attempt. Never
   * rejects: a metric that cannot be written must not fail (nor, past
   * `timeoutMs`, hold up) the delivery it describes; the failure is logged
   * and that attempt is missing from the counts (or counted late, if Redis
   * takes the queued write after the timeout).
   */
  async record(observation: DeliveryAttemptObservation): Promise<void> {
    try {
      const multi = this.options.redis.multi();
      for (const [field, by] of attemptIncrements(observation)) multi.hincrby(this.key, field, by);
      const results = await withTimeout(multi.exec(), this.timeoutMs);
      if (results === null) throw new Error('the transaction was discarded');
      const failed = results.find(([error]) => error !== null);
      if (failed) throw failed[0];
    } catch (error) {
      this.log(`an attempt (${observation.outcome}) was not counted: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async snapshot(): Promise<DeliveryMetricsSnapshot> {
    return parseDeliveryMetrics(await this.options.redis.hgetall(this.key));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  // race() subscribes to both, so a late rejection of `promise` is handled.
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
