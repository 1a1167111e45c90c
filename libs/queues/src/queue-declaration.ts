import type { Type } from '@nestjs/common';
import type { BackoffStrategy, DefaultJobOptions, Job } from 'bullmq';

/**
 * Handles one job of a declared queue. Implementations are ordinary Nest
 * providers of the library that declares the queue, so they get their
 * dependencies by injection; the queues module looks them up by class.
 *
 * Delivery is at least once: a job interrupted by a crash or by a shutdown
 * that outlasts the drain timeout runs again, so a processor must be safe to
 * repeat.
 */
export interface JobProcessor<Data = unknown, Result = unknown> {
  /**
   * `signal` is aborted when shutdown has waited its full drain timeout for
   * this job; pass it to long operations (fetch, streams) so they stop early
   * and the job is retried instead of being abandoned mid-way.
   */
  process(job: Job<Data, Result>, signal: AbortSignal): Promise<Result>;
}

/** Everything the service needs to know about one queue, written once by the library that owns it. */
export interface QueueDeclaration<Data = unknown, Result = unknown> {
  /** Unique among declared queues; part of every Redis key of the queue. */
  name: string;
  /** A provider class, made available by a module that both apps/api and apps/worker import. */
  processor: Type<JobProcessor<Data, Result>>;
  /** Jobs of this queue one worker process runs at the same time; default 1. */
  concurrency?: number;
  /** Applied to every job added to the queue (attempts, backoff, removeOnComplete, ...). */
  defaultJobOptions?: DefaultJobOptions;
  /** The delay before each retry of a job whose backoff type is `custom`; it sees the error, so it can honour what the failure said (a Retry-After). */
  backoffStrategy?: BackoffStrategy;
}
