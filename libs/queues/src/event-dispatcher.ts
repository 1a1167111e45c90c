import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { queuesUnit } from './queue-keys';
import { luaScript, retryBackoffMs, runScript, settlesWithin, sleepUnlessAborted, type RedisClient } from '@ledger/platform';

/** One job an event asks for. The id is derived from the event, so a replay adds nothing twice. */
export interface DispatchedJob<Data = unknown> {
  /** BullMQ refuses custom ids containing `:`. */
  jobId: string;
  data: Data;
}

/** What the dispatcher needs of a BullMQ queue. */
export interface JobSink {
  add(name: string, data: unknown, options: { jobId: string }): Promise<unknown>;
  /** Where a job stands; `unknown` when the queue holds no such job (removed once finished, or lost with Redis). */
  getJobState(jobId: string): Promise<string>;
}

export interface EventDispatcherOptions {
  /** Followed; it also keeps the dispatcher's finished mark. */
  store: EventStore;
  redis: RedisClient;
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

/** How often the finished mark is worked out and saved in the store. */
const MARK_EVERY_MS = 1_000;

/** Outstanding jobs whose state is asked for at once, and at most in one working out of the mark. */
const MARK_PAGE = 100;
const MARK_ROUND = 1_000;

/** A job in these states will not run again. `unknown`: the queue removed it once finished. */
const FINISHED_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'unknown']);

/**
 * Where to follow from. A checkpoint that is gone (Redis lost its data, or
 * never held it) starts again from the finished mark (ARGV[1]) under a new
 * epoch (ARGV[2]); a checkpoint without an epoch (written before epochs)
 * keeps its place and gets one. Returns the checkpoint and the epoch.
 */
const RESUME = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[2])
else
  redis.call('SET', KEYS[2], ARGV[2], 'NX')
end
return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
`);

/** Moves the checkpoint (ARGV[1]) only within the epoch it was resumed in (ARGV[2]); 0 when Redis lost it since. */
const MOVE_CHECKPOINT = luaScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`);

/** Forgets the finished jobs (ARGV[2..]) if the epoch is still ARGV[1], so that what was seen of the queue still holds; 0 when it is not. */
const FORGET_FINISHED = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if #ARGV > 1 then redis.call('ZREM', KEYS[2], unpack(ARGV, 2)) end
return 1
`);

/**
 * Turns facts into jobs (facts leave the store only through a follower of it,
 * nothing is enqueued from an HTTP handler: docs/architecture.md, "Queues,
 * webhooks and artifacts"). It follows the store from its own checkpoint in
 * Redis, adds each asked-for job with an id derived from the event, then moves
 * the checkpoint. A crash between the two replays the event, and BullMQ ignores
 * a job id it already holds, so processors must be idempotent.
 *
 * Redis can lose the queues together with the checkpoint (a flush, a restart
 * without persistence). So every job is also noted as outstanding, under
 * its event's position, before it is added; once a second the dispatcher
 * asks the queue which of them have finished and saves, in the store, the
 * position through which every job has (the finished mark). A checkpoint
 * found gone resumes from that mark: the jobs that were waiting, retrying or
 * running when Redis lost them are added again, and the ones that finished
 * since the mark was saved run again (decision 0080). A running dispatcher
 * notices the loss when it moves its checkpoint, which belongs to an epoch
 * Redis no longer holds, or within a second, when it works out the mark.
 */
export class EventDispatcher {
  private running: { controller: AbortController; done: Promise<unknown> } | undefined;
  private readonly checkpointKey: string;
  private readonly epochKey: string;
  private readonly outstandingKey: string;
  private readonly log: (message: string) => void;
  private savedMark = -1;
  /** The epoch the follower resumed in, and how to make it resume again once Redis no longer holds it. */
  private following: { epoch: string; lost: AbortController } | undefined;

  constructor(private readonly options: EventDispatcherOptions) {
    const keys = `${queuesUnit(options.redis, options.prefix)}:dispatcher:${options.name}`;
    this.checkpointKey = `${keys}:checkpoint`;
    this.epochKey = `${keys}:epoch`;
    this.outstandingKey = `${keys}:outstanding`;
    this.log = options.log ?? ((message) => process.stderr.write(`dispatcher ${options.name}: ${message}\n`));
  }

  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.running = { controller, done: Promise.all([this.run(controller.signal), this.keepMark(controller.signal)]) };
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

  /** The position through which every job this dispatcher asked for has finished, as saved in the store. */
  finishedMark(): Promise<number> {
    return this.options.store.finishedMarks.of(this.options.name);
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

  private async follow(stopped: AbortSignal): Promise<void> {
    const { redis, store } = this.options;
    const resumed = (await runScript(redis, RESUME, [this.checkpointKey, this.epochKey], [await this.finishedMark(), randomUUID()])) as [string, string];
    const [after, epoch] = [Number(resumed[0]), resumed[1]];
    const following = { epoch, lost: new AbortController() };
    this.following = following;
    const signal = AbortSignal.any([stopped, following.lost.signal]);
    let unsaved = 0;
    for await (const page of store.subscribeToAll({ after, signal })) {
      for (const event of page) {
        const jobs = await this.options.jobsFor(event);
        if (jobs.length > 0) {
          // Outstanding before it is added: the mark never passes a job the queue may hold.
          await redis.zadd(this.outstandingKey, ...jobs.flatMap((job) => [event.position, job.jobId]));
          await (this.options.inTraceOf ? this.options.inTraceOf(event, () => this.add(jobs)) : this.add(jobs));
        }
        unsaved += 1;
        if (jobs.length > 0 || unsaved >= CHECKPOINT_EVERY) {
          if ((await runScript(redis, MOVE_CHECKPOINT, [this.checkpointKey, this.epochKey], [event.position, epoch])) !== 1) return this.lostQueues(following);
          unsaved = 0;
        }
        // A page holds up to hundreds of events: stopping waits for the event in hand, not for the rest of the page.
        if (signal.aborted) return;
      }
    }
  }

  /** Redis no longer holds the epoch the follower resumed in: it resumes again, from the finished mark if the checkpoint went too. */
  private lostQueues(following: { lost: AbortController }): void {
    if (following.lost.signal.aborted) return;
    this.log('Redis lost the queues and this checkpoint: following again from the finished mark');
    following.lost.abort();
  }

  private async add(jobs: DispatchedJob[]): Promise<void> {
    for (const job of jobs) await this.options.queue.add(this.options.name, job.data, { jobId: job.jobId });
  }

  private async keepMark(signal: AbortSignal): Promise<void> {
    let failing = false;
    while (!signal.aborted) {
      await sleepUnlessAborted(MARK_EVERY_MS, signal);
      if (signal.aborted) return;
      try {
        await this.saveFinishedMark();
        failing = false;
      } catch (error) {
        // Once per run of failures: Redis or the store being away is reported by their own connections.
        if (!failing) this.log(`could not save the finished mark: ${error instanceof Error ? error.message : String(error)}`);
        failing = true;
      }
    }
  }

  /**
   * The finished mark: the checkpoint, or the position before the first
   * outstanding job at or below it that has not finished. Outstanding jobs
   * above the checkpoint may not be added yet, so they are not asked about.
   * What was seen counts only if Redis still holds the same epoch once the
   * finished jobs are forgotten: a loss in between would make jobs it took
   * with it look finished.
   */
  async saveFinishedMark(): Promise<void> {
    const { redis, queue, store, name } = this.options;
    const [epoch, checkpoint] = await redis.mget(this.epochKey, this.checkpointKey);
    // Redis lost the queues, or another instance found them lost and resumed in a new epoch.
    if (this.following && epoch !== this.following.epoch) this.lostQueues(this.following);
    if (epoch === null || checkpoint === null) return;
    const through = Number(checkpoint);
    let mark = through;
    const finished: string[] = [];
    scan: for (let offset = 0; ; offset += MARK_PAGE) {
      const page = await redis.zrangebyscore(this.outstandingKey, '-inf', through, 'WITHSCORES', 'LIMIT', offset, MARK_PAGE);
      const jobIds = page.filter((_, index) => index % 2 === 0);
      const states = await Promise.all(jobIds.map((jobId) => queue.getJobState(jobId)));
      for (const [index, jobId] of jobIds.entries()) {
        if (!FINISHED_STATES.has(states[index])) {
          mark = Number(page[2 * index + 1]) - 1;
          break scan;
        }
        finished.push(jobId);
      }
      if (jobIds.length < MARK_PAGE) break;
      if (offset + MARK_PAGE >= MARK_ROUND) {
        // The rest, next time; jobs of the last event seen may be among them.
        mark = Number(page[page.length - 1]) - 1;
        break;
      }
    }
    if ((await runScript(redis, FORGET_FINISHED, [this.epochKey, this.outstandingKey], [epoch, ...finished])) !== 1) return;
    if (mark <= this.savedMark) return;
    await store.finishedMarks.advance(name, mark);
    this.savedMark = mark;
  }
}
