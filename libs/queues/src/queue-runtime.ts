import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { createRedis, LEDGER_CONFIG, LedgerConfig, reportRedisErrors, settlesWithin, whenDown, type RedisClient } from '@ledger/platform';
import { Queue, Telemetry, Worker } from 'bullmq';
import type { JobProcessor, QueueDeclaration } from './queue-declaration';
import { queuePrefix } from './queue-keys';

export const QUEUES_OPTIONS = Symbol('QUEUES_OPTIONS');

export interface QueuesModuleOptions {
  /** Every declared queue; the same list in apps/api and apps/worker. */
  queues: readonly QueueDeclaration[];
  /** Whether this process runs the workers. Defaults to `LedgerConfig.inProcessWorkers`; apps/worker passes `true`. */
  runWorkers?: boolean;
  /** How long shutdown waits for active jobs before abandoning them to a retry; default 30 s. */
  drainTimeoutMs?: number;
  /**
   * BullMQ's spans for every queue and worker: @ledger/tracing's
   * `queueTelemetry()`, passed by the applications rather than imported
   * here, so that the CLI, which reads queues, never loads the tracing SDK.
   */
  telemetry?: Telemetry;
}

/** Job counts of one queue, for metrics. `waiting` includes prioritized jobs: both are ready for a worker. */
export interface QueueStats {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/** Job counts of one queue by state. */
export async function queueCounts(queue: Queue): Promise<QueueStats> {
  const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
  return {
    queue: queue.name,
    waiting: counts.waiting + counts.prioritized,
    active: counts.active,
    delayed: counts.delayed,
    failed: counts.failed,
    completed: counts.completed,
  };
}


/**
 * Owns every BullMQ object of the process: one shared Redis connection, one
 * Queue per declaration (for producers) and, when this process runs workers,
 * one Worker per declaration.
 *
 * Shutdown happens in two Nest phases so that the order is right: workers
 * stop taking jobs and drain in `onModuleDestroy`, then queues and the
 * connection close in `onApplicationShutdown`. Libraries whose resources a
 * processor uses should therefore release them in `onApplicationShutdown`.
 */
@Injectable()
export class QueueRuntime implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Queues');
  /** Every key lives under the instance's prefix, so instances with different prefixes never share a job. */
  private readonly prefix: string;
  /**
   * Queues share this connection; each worker duplicates it into connections
   * of its own (BullMQ blocks on them), inheriting `maxRetriesPerRequest: null`
   * and the retry strategy, so workers and queues wait for Redis to return
   * instead of failing.
   */
  private readonly connection: RedisClient;
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly runWorkers: boolean;
  private readonly drainTimeoutMs: number;

  constructor(
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
    @Inject(QUEUES_OPTIONS) private readonly options: QueuesModuleOptions,
    private readonly moduleRef: ModuleRef,
  ) {
    this.runWorkers = options.runWorkers ?? config.inProcessWorkers;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.connection = reportRedisErrors(createRedis(config.redis, `${config.redisPrefix}:queues`), 'the queues', (message) => this.logger.error(message));
    this.prefix = queuePrefix(this.connection, config.redisPrefix);
    this.connection.on('ready', () => this.logger.log('Redis connection of the queues is ready'));
    for (const declaration of options.queues) {
      const queue = new Queue(declaration.name, {
        connection: this.connection,
        prefix: this.prefix,
        defaultJobOptions: declaration.defaultJobOptions,
        telemetry: options.telemetry,
      });
      // A queue's only connection is the shared one, whose errors are logged
      // once above; without a listener BullMQ would also print each of them
      // to the console, once per queue.
      queue.on('error', () => undefined);
      this.queues.set(declaration.name, queue);
    }
  }

  /** The producer side of a declared queue. */
  queue(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`queue "${name}" is not declared`);
    return queue;
  }

  async queueStats(): Promise<QueueStats[]> {
    return Promise.all([...this.queues.values()].map(queueCounts));
  }

  /** Workers start only once every module is initialized, so a processor never sees a half-built application. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.runWorkers) {
      this.logger.log('Queue workers run in a separate process (LEDGER_WORKERS=external)');
      return;
    }
    let processors: JobProcessor[];
    try {
      processors = this.options.queues.map((declaration) => this.moduleRef.get(declaration.processor, { strict: false }));
    } catch (error) {
      // The application will not start, and Nest runs no shutdown hook for it:
      // release the connection here so that a failed start leaves nothing open.
      await this.onApplicationShutdown();
      throw error;
    }
    this.options.queues.forEach((declaration, index) => this.workers.push(this.startWorker(declaration, processors[index])));
    const names = this.options.queues.map((declaration) => declaration.name);
    this.logger.log(names.length > 0 ? `Workers running for queues: ${names.join(', ')}` : 'No queues declared');
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.map((worker) => this.drain(worker)));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    // disconnect, not quit: QUIT would wait for Redis to come back if it is down.
    this.connection.disconnect();
  }

  private startWorker(declaration: QueueDeclaration, processor: JobProcessor): Worker {
    const worker = new Worker(
      declaration.name,
      // Declared with three parameters because BullMQ creates the AbortSignal
      // only for processors whose arity says they accept one.
      (job, _token, signal) => processor.process(job, signal!),
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: declaration.concurrency ?? 1,
        telemetry: this.options.telemetry,
        ...(declaration.backoffStrategy ? { settings: { backoffStrategy: declaration.backoffStrategy } } : {}),
      },
    );
    worker.on('error', (error) => this.logger.error(`Worker of queue ${declaration.name}: ${error.message}`));
    worker.on('failed', (job, error) => {
      this.logger.warn(`Job ${job?.id} of queue ${declaration.name} failed (attempt ${job?.attemptsMade}): ${error.message}`);
    });
    return worker;
  }

  /**
   * Stops taking jobs and waits for the active ones, at most drainTimeoutMs,
   * and not at all while Redis is out of reach: a job could not record its
   * end there anyway. Past that, processors are signalled to abort and
   * shutdown goes on; BullMQ runs an abandoned job again once its lock expires.
   */
  private async drain(worker: Worker): Promise<void> {
    let drained = false;
    await settlesWithin(Promise.race([worker.close().then(() => (drained = true)), whenDown(this.connection)]), this.drainTimeoutMs);
    if (!drained) {
      worker.cancelAllJobs('shutting down');
      this.logger.warn(`Queue ${worker.name}: jobs still active at shutdown (after ${this.drainTimeoutMs} ms, or with Redis out of reach) were told to abort and will be retried`);
    }
  }
}
