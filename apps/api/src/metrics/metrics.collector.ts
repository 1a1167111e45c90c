import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, Clock } from '@ledger/platform';
import { ProjectionRunner, ProjectionStatus, ReadModel } from '@ledger/projections';
import { RIGHTS_REQUEST_KINDS, RightsRequestKind, countOpenRightsRequests } from '@ledger/redec';
import { QueueRuntime, QueueStats } from '@ledger/queues';
import { MetricFamily, WebhookDeliveryMetrics, deliveryMetricFamilies } from '@ledger/webhooks';

/** A scrape does not wait longer than this for any one source (Redis down: every read would wait for it). */
const SOURCE_TIMEOUT_MS = 2_000;

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

export const METRIC_NAMES = {
  queueJobs: 'ledger_queue_jobs',
  projectionLag: 'ledger_projection_lag',
  sourceUp: 'ledger_metrics_source_up',
  rightsRequestsOpen: 'ledger_rights_requests_open',
  rightsRequestsOverdue: 'ledger_rights_requests_overdue',
} as const;

type Source = 'webhook_deliveries' | 'queues' | 'projections' | 'rights_requests';

/**
 * Gathers every figure GET /metrics shows. All of them are read from Redis
 * (the delivery counters, BullMQ's job counts, the projections' pointers),
 * so they are the whole instance's, whichever process did the work, and
 * every API process shows the same values: scrape one of them, or aggregate
 * with max() rather than sum().
 *
 * A source that cannot be read within SOURCE_TIMEOUT_MS is left out of the
 * scrape (its series go stale) and `ledger_metrics_source_up` says 0 for it.
 */
@Injectable()
export class MetricsCollector {
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly deliveries: WebhookDeliveryMetrics,
    private readonly queues: QueueRuntime,
    private readonly projections: ProjectionRunner,
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async collect(): Promise<MetricFamily[]> {
    const sources: Array<[Source, () => Promise<MetricFamily[]>]> = [
      ['webhook_deliveries', async () => deliveryMetricFamilies(await this.deliveries.snapshot())],
      ['queues', async () => [queueJobsFamily(await this.queues.queueStats())]],
      ['projections', async () => [projectionLagFamily(await this.projections.status())]],
      ['rights_requests', async () => rightsRequestFamilies(await countOpenRightsRequests(this.readModel, this.clock.now()))],
    ];
    const read = await Promise.all(sources.map(async ([source, families]) => ({ source, families: await this.attempt(source, families) })));
    return [
      ...read.flatMap(({ families }) => families ?? []),
      {
        name: METRIC_NAMES.sourceUp,
        help: 'Whether this scrape could read the source (1) or not (0: its metrics are missing from this scrape).',
        type: 'gauge',
        samples: read.map(({ source, families }) => ({ name: METRIC_NAMES.sourceUp, labels: { source }, value: families ? 1 : 0 })),
      },
    ];
  }

  private async attempt(source: Source, families: () => Promise<MetricFamily[]>): Promise<MetricFamily[] | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${SOURCE_TIMEOUT_MS} ms`)), SOURCE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([families(), timeout]);
    } catch (error) {
      this.logger.warn(`metrics of ${source} not read: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}

export function queueJobsFamily(stats: readonly QueueStats[]): MetricFamily {
  return {
    name: METRIC_NAMES.queueJobs,
    help: "Jobs of each declared queue by state: waiting (prioritized included), active, delayed (retries waiting for their time included), failed (attempts exhausted, kept for an operator), completed (as many as the queue's retention keeps).",
    type: 'gauge',
    samples: stats.flatMap((queue) => QUEUE_STATES.map((state) => ({ name: METRIC_NAMES.queueJobs, labels: { queue: queue.queue, state }, value: queue[state] }))),
  };
}

export function projectionLagFamily(statuses: readonly ProjectionStatus[]): MetricFamily {
  return {
    name: METRIC_NAMES.projectionLag,
    help: "Store positions a projection's read model has not absorbed yet (the store's head position minus the projection's checkpoint).",
    type: 'gauge',
    samples: statuses.map((status) => ({ name: METRIC_NAMES.projectionLag, labels: { projection: status.name }, value: status.lag })),
  };
}

/** Every kind, at zero when none is open, so that an alert on a kind has a series before its first request. */
export function rightsRequestFamilies(counts: { open: ReadonlyMap<RightsRequestKind, number>; overdue: ReadonlyMap<RightsRequestKind, number> }): MetricFamily[] {
  const family = (name: string, help: string, of: ReadonlyMap<RightsRequestKind, number>): MetricFamily => ({
    name,
    help,
    type: 'gauge',
    samples: RIGHTS_REQUEST_KINDS.map((kind) => ({ name, labels: { kind }, value: of.get(kind) ?? 0 })),
  });
  return [
    family(METRIC_NAMES.rightsRequestsOpen, "Data subjects' rights requests not yet resolved, of every tenant, by kind.", counts.open),
    family(METRIC_NAMES.rightsRequestsOverdue, 'Of those, the ones past their legal deadline (dueAt): each is an answer the bank owes late.', counts.overdue),
  ];
}
