import type { EventStore, RecordedEvent } from '@ledger/event-store';
import type { Redis } from 'ioredis';
import { retryBackoffMs, settlesWithin, sleepUnlessAborted } from '@ledger/platform';

/** One job an event asks for. The id is derived from the event, so a replay adds nothing twice. */
export interface DispatchedJob<Data = unknown> {
  /** BullMQ refuses custom ids containing `:`. */
  jobId: string;
  data: Data;
}

/** What the dispatcher needs of a BullMQ queue. */
export interface JobSink {
  add(name: string, data: unknown, options: { jobId: string }): Promise<unknown>;
}

export interface EventDispatcherOptions {
  store: EventStore;
  redis: Redis;
  /** LEDGER_REDIS_PREFIX: the checkpoint lives under it. */
  prefix: string;
  /** Names the checkpoint and the jobs; unique per dispatcher. */
  name: string;
  queue: JobSink;
  /** The jobs one event asks for (usually none); the same event must always ask for the same jobs. */
  jobsFor(event: RecordedEvent): DispatchedJob[] | Promise<DispatchedJob[]>;
  log?: (message: string) => void;
  /**
   * Runs the adding of one event's jobs: tracing makes them part of the
   * trace of the request that recorded the event (@ledger/tracing's
   * `inTraceOfAppend`). Unset, they are added as they are.
   */
  inTraceOf?: <T>(event: RecordedEvent, work: () => Promise<T>) => Promise<T>;
}

/** Checkpoints are written at least this often while only ignored events pass by. */
const CHECKPOINT_EVERY = 500;

/**
 * Turns facts into jobs (facts leave the store only through a follower of it,
 * nothing is enqueued from an HTTP handler: docs/architecture.md, "Queues,
 * webhooks and artifacts"). It follows the store from its own checkpoint in
 * Redis, adds each asked-for job with an id derived from the event, then moves
 * the checkpoint. A crash between the two replays the event, and BullMQ ignores
 * a job id it already holds; a lost checkpoint (Redis restarted empty) replays
 * everything the same way, so processors must also be idempotent.
 */
export class EventDispatcher {
  private running: { controller: AbortController; done: Promise<void> } | undefined;
  private readonly checkpointKey: string;
  private readonly log: (message: string) => void;

  constructor(private readonly options: EventDispatcherOptions) {
    this.checkpointKey = `${options.prefix}:dispatcher:${options.name}:checkpoint`;
    this.log = options.log ?? ((message) => process.stderr.write(`dispatcher ${options.name}: ${message}\n`));
  }

  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.running = { controller, done: this.run(controller.signal) };
  }

  /**
   * Stops following. With Redis unreachable, a command in flight waits for
   * it (workers' connections never fail a command), so stop waits at most
   * `graceMs`: shutdown must go on to close the connection, which ends that
   * command. Nothing is lost; the next start resumes from the checkpoint.
   */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    const { controller, done } = this.running;
    this.running = undefined;
    controller.abort();
    await settlesWithin(done, graceMs);
  }

  async checkpoint(): Promise<number> {
    return Number((await this.options.redis.get(this.checkpointKey)) ?? 0);
  }

  private async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.follow(signal);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.log(`retrying after: ${error instanceof Error ? error.message : String(error)}`);
        await sleepUnlessAborted(retryBackoffMs(failures), signal);
      }
    }
  }

  private async follow(signal: AbortSignal): Promise<void> {
    let unsaved = 0;
    for await (const page of this.options.store.subscribeToAll({ after: await this.checkpoint(), signal })) {
      for (const event of page) {
        const jobs = await this.options.jobsFor(event);
        if (jobs.length > 0) await (this.options.inTraceOf ? this.options.inTraceOf(event, () => this.add(jobs)) : this.add(jobs));
        unsaved += 1;
        if (jobs.length > 0 || unsaved >= CHECKPOINT_EVERY) {
          await this.options.redis.set(this.checkpointKey, String(event.position));
          unsaved = 0;
        }
        // A page holds up to hundreds of events: stopping waits for the event in hand, not for the rest of the page.
        if (signal.aborted) return;
      }
    }
  }

  private async add(jobs: DispatchedJob[]): Promise<void> {
    for (const job of jobs) await this.options.queue.add(this.options.name, job.data, { jobId: job.jobId });
  }
}
