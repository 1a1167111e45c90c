import { setMaxListeners } from 'node:events';
import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { Clock, isRedisCluster, retryBackoffMs, sleepUnlessAborted, systemClock, type RedisClient } from '@ledger/platform';
import { applyBatch } from './apply-batch';
import { BatchReader } from './batch-reader';
import { digestModel, EMPTY_DIGEST, readGeneration } from './digest';
import { createPointer, nextStep, readPointer } from './pointer';
import { AnyDocumentProjection } from './projection';
import { ProgressReport, ProjectionProgress } from './projection-progress';
import { RebuildContext, RebuildProgress, fillPartition, rebuildProjection, rebuildProjections } from './rebuild';
import type { Partition, RebuildPartitions } from './partitions';
import { Pointer, RedisLayout } from './redis-layout';

export type ProjectionLog = (level: 'warn' | 'error', message: string) => void;

export interface ProjectionRunnerOptions {
  store: EventStore;
  redis: RedisClient;
  /** LEDGER_REDIS_PREFIX: every key lives under it. */
  prefix: string;
  projections: readonly AnyDocumentProjection[];
  /** Most events folded into one atomic write (1000). */
  batchSize?: number;
  /** How long a live subscription waits for an event before checking that its pointer has not moved (1000 ms). */
  idleCheckMs?: number;
  /** Times rebuild progress; the system clock by default. */
  clock?: Clock;
  /** Where failures are reported (they are retried, never skipped); stderr by default. */
  log?: ProjectionLog;
  /** Hears every change of `progress` while the runner follows (the API's projection thread passes it on). */
  onProgress?: (report: ProgressReport) => void;
}

export interface ProjectionStatus {
  name: string;
  version: number;
  /** null before the model's first write. */
  generation: string | null;
  checkpoint: number;
  /** Store head position minus checkpoint. */
  lag: number;
}

export interface RebuildResult {
  name: string;
  events: number;
  digest: string;
}

const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Keeps every registered projection's Redis model up to date with the event
 * store, and offers the operator's view of them (status, rebuild, digest).
 *
 * The operator methods read Redis, not this object's memory, so a process
 * that never calls `start()` (the CLI) can use them while the API runs.
 */
export class ProjectionRunner {
  private readonly layout: RedisLayout;
  private readonly context: RebuildContext;
  private readonly loops: ProjectionLoop[];
  /** Fed by this runner while it follows the store; by the API's projection thread when the runner follows there. */
  readonly progress = new ProjectionProgress();
  private running: { controller: AbortController; done: Promise<unknown> } | undefined;
  /** The store's head when `start()` ran: the initial catch-up target. */
  private startHead: number | undefined;

  constructor(private readonly options: ProjectionRunnerOptions) {
    const names = options.projections.map((p) => p.name);
    const invalid = names.find((name, i) => !NAME.test(name) || names.indexOf(name) !== i);
    if (invalid !== undefined) throw new Error(`projection name "${invalid}" is repeated or not made of letters, digits, - and _`);
    const misgrouped = options.projections.find((p) => p.grouped && (p.indexes || p.compression));
    if (misgrouped) throw new Error(`projection ${misgrouped.name}: a grouped projection has no indexes and does not compress`);
    this.layout = new RedisLayout(options.prefix, isRedisCluster(options.redis));
    this.context = {
      store: options.store,
      redis: options.redis,
      layout: this.layout,
      batchSize: options.batchSize ?? 1000,
      clock: options.clock ?? systemClock(),
    };
    const log = options.log ?? ((level, message) => process.stderr.write(`projections ${level}: ${message}\n`));
    this.loops = options.projections.map(
      (projection) => new ProjectionLoop(this.context, projection, options.idleCheckMs ?? 1000, log, () => this.notify()),
    );
  }

  /** Starts following the store in the background; returns at once (see `isReady`). */
  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    // Every loop holds up to two listeners on this signal (its subscription's and its idle wait's): more than Node's default of ten for a service's projections.
    setMaxListeners(2 * (this.loops.length + 1), controller.signal);
    const done = Promise.all([this.recordStartHead(controller.signal), ...this.loops.map((loop) => loop.run(controller.signal))]);
    this.running = { controller, done };
  }

  /** Stops following; a batch in flight is finished first. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running.controller.abort();
    await this.running.done;
    this.running = undefined;
    this.notify();
  }

  /** Whether every projection has caught up with the store's head as it was when following began. */
  isReady(): boolean {
    return this.progress.isReady();
  }

  /** Resolves true once `isReady()`, false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean> {
    return this.progress.ready(timeoutMs);
  }

  /**
   * Resolves true as soon as every projection has absorbed `position` (a
   * command's commit position, so its client reads its own write), false
   * after `timeoutMs`. Never rejects.
   */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    return this.progress.waitForPosition(position, timeoutMs);
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.options.store.headPosition();
    return Promise.all(
      this.options.projections.map(async ({ name, version }) => {
        const pointer = await readPointer(this.options.redis, this.layout.pointer(name));
        const checkpoint = pointer?.checkpoint ?? 0;
        return { name, version: pointer?.version ?? version, generation: pointer?.generation ?? null, checkpoint, lag: head - checkpoint };
      }),
    );
  }

  /**
   * Rebuilds the named projections (all by default) from position 0 beside
   * the live models, and switches to them, each when it has caught up. They
   * are rebuilt together: each page of the log is read once for all of them.
   * With `partitions`, their generations are filled in partitions first,
   * each partition by `fillPartition` on another thread or process.
   */
  async rebuild(names?: readonly string[], onProgress?: (progress: RebuildProgress) => void, partitions?: RebuildPartitions): Promise<RebuildResult[]> {
    const projections = this.select(names);
    const events = await rebuildProjections(this.context, projections, { onProgress, partitions });
    const results: RebuildResult[] = [];
    for (const [i, projection] of projections.entries()) {
      results.push({ name: projection.name, events: events[i], digest: await this.digest(projection.name) });
    }
    return results;
  }

  /**
   * The digest of the live model's content (see `digestModel`): the one its
   * writes kept, or, for a generation a release before decision 0047 wrote,
   * computed by reading the whole generation.
   */
  async digest(name: string): Promise<string> {
    const [projection] = this.select([name]);
    const pointer = await readPointer(this.options.redis, this.layout.pointer(projection.name));
    if (!pointer) return EMPTY_DIGEST;
    return pointer.digest ?? this.contentDigest(name);
  }

  /**
   * The digest of what the live generation holds, read key by key (SCAN): it
   * equals `digest(name)` unless something other than the runner changed the
   * model's keys. Slow on a large model; for checks, not for answers.
   */
  async contentDigest(name: string): Promise<string> {
    const [projection] = this.select([name]);
    const pointer = await readPointer(this.options.redis, this.layout.pointer(projection.name));
    if (!pointer) return EMPTY_DIGEST;
    return digestModel(await readGeneration(this.options.redis, this.layout, projection, pointer.generation));
  }

  /** One partition's share of a rebuild in partitions (`rebuild` with `partitions`), up to position `until`; returns the events it read. */
  fillPartition(names: readonly string[] | undefined, partition: Partition, until: number, onProgress?: (progress: RebuildProgress) => void): Promise<number> {
    return fillPartition(this.context, this.select(names), partition, until, { onProgress });
  }

  private select(names: readonly string[] | undefined): AnyDocumentProjection[] {
    if (names === undefined) return [...this.options.projections];
    return names.map((name) => {
      const projection = this.options.projections.find((p) => p.name === name);
      if (!projection) {
        throw new Error(`unknown projection "${name}"; known: ${this.options.projections.map((p) => p.name).join(', ')}`);
      }
      return projection;
    });
  }

  /** The last position every projection has absorbed: -1 while one has no cursor yet; a superseded one no longer holds the others back. */
  private absorbed(): number {
    let absorbed = Infinity;
    for (const loop of this.loops) {
      if (loop.superseded) continue;
      if (loop.cursor === undefined) return -1;
      absorbed = Math.min(absorbed, loop.cursor.checkpoint);
    }
    return absorbed;
  }

  private async recordStartHead(signal: AbortSignal): Promise<void> {
    for (let failures = 0; !signal.aborted; failures++) {
      try {
        this.startHead = await this.options.store.headPosition();
        this.notify();
        return;
      } catch {
        await sleepUnlessAborted(retryBackoffMs(failures), signal);
      }
    }
  }

  private notify(): void {
    const absorbed = this.absorbed();
    const before = this.progress.report;
    const rebuilding = this.loops.some((loop) => !loop.superseded && loop.rebuilding);
    this.progress.update({ absorbed, ready: !rebuilding && this.startHead !== undefined && absorbed >= this.startHead, rebuilding });
    if (this.progress.report !== before) this.options.onProgress?.(this.progress.report);
  }
}

/**
 * Follows the store for one projection. `cursor` is what this process knows
 * the live generation has absorbed; it only moves after a confirmed write or
 * after reading the pointer, never ahead of what Redis holds.
 */
class ProjectionLoop {
  cursor: Pointer | undefined;
  superseded = false;
  private failures = 0;
  /** Set when the model was found gone, until the new generation's pointer is read. */
  private recreating = false;

  constructor(
    private readonly context: RebuildContext,
    private readonly projection: AnyDocumentProjection,
    private readonly idleCheckMs: number,
    private readonly log: ProjectionLog,
    private readonly onCursor: () => void,
  ) {}

  /** Whether the live generation is being rebuilt after a loss and has not yet absorbed what the store held then. */
  get rebuilding(): boolean {
    if (this.cursor === undefined) return this.recreating;
    return this.cursor.rebuildingTo !== undefined && this.cursor.checkpoint < this.cursor.rebuildingTo;
  }

  private get pointerKey(): string {
    return this.context.layout.pointer(this.projection.name);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { redis } = this.context;
    const { name, version } = this.projection;
    this.superseded = false;
    while (!signal.aborted) {
      try {
        const step = nextStep(await readPointer(redis, this.pointerKey), version);
        switch (step.kind) {
          case 'create':
            // The model is gone: nothing this process saw written is readable until it is rebuilt, up to the head as it is now.
            this.recreating = true;
            this.moveCursor(undefined);
            await createPointer(redis, this.pointerKey, version, await this.context.store.headPosition());
            break;
          case 'rebuild':
            this.log('warn', `projection ${name}: the model is of an older version; rebuilding it as version ${version}`);
            await rebuildProjection(this.context, this.projection, { signal });
            break;
          case 'superseded':
            this.log('warn', `projection ${name}: the model is version ${step.version}, newer than ${version}; this process leaves it alone`);
            this.superseded = true;
            this.onCursor();
            return;
          case 'follow':
          case 'continue':
            this.moveCursor(step.pointer);
            await this.follow(step.pointer, signal);
            break;
        }
      } catch (error) {
        this.log('error', `projection ${name}: ${error instanceof Error ? error.message : String(error)}; retrying`);
        await sleepUnlessAborted(retryBackoffMs(this.failures++), signal);
      }
    }
  }

  /** Applies the subscription's batches until the pointer moves in a way that needs a new subscription. */
  private async follow(from: Pointer, signal: AbortSignal): Promise<void> {
    const subscription = new AbortController();
    const stopSubscription = () => subscription.abort();
    signal.addEventListener('abort', stopSubscription, { once: true });
    const events = this.context.store.subscribeToAll({ after: from.checkpoint, signal: subscription.signal });
    const reader = new BatchReader(events[Symbol.asyncIterator]());
    try {
      while (!signal.aborted) {
        const batch = await reader.next(this.context.batchSize, this.idleCheckMs, signal);
        // Only a closed store ends a subscription; retrying at once would spin.
        if (batch === 'ended') throw new Error('the event store subscription ended');
        const keepFollowing = batch === 'idle' ? await this.pointerUnmoved(signal) : await this.apply(batch);
        if (!keepFollowing) return;
      }
    } finally {
      signal.removeEventListener('abort', stopSubscription);
      subscription.abort();
      reader.close();
    }
  }

  /** Writes a batch; false when the pointer moved so that the subscription must be reopened. */
  private async apply(batch: RecordedEvent[]): Promise<boolean> {
    const { redis, layout } = this.context;
    let cursor = this.cursor as Pointer;
    let pending = batch.filter((event) => event.position > cursor.checkpoint);
    while (pending.length > 0) {
      const applied = await applyBatch(redis, layout, this.projection, this.pointerKey, cursor, pending);
      if (applied !== null) {
        this.failures = 0;
        this.moveCursor(applied);
        return true;
      }
      const step = nextStep(await readPointer(redis, this.pointerKey), this.projection.version, cursor);
      if (step.kind !== 'continue') return false;
      // Another process applied some of these events to the same generation: apply the rest.
      cursor = step.pointer;
      this.moveCursor(cursor);
      pending = pending.filter((event) => event.position > cursor.checkpoint);
    }
    return true;
  }

  /**
   * While no event comes, makes sure the pointer still says what we think:
   * a rebuild may have switched generations, or Redis may have lost the data.
   */
  private async pointerUnmoved(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return true;
    const step = nextStep(await readPointer(this.context.redis, this.pointerKey), this.projection.version, this.cursor);
    if (step.kind !== 'continue') return false;
    this.moveCursor(step.pointer);
    return true;
  }

  private moveCursor(cursor: Pointer | undefined): void {
    this.cursor = cursor;
    if (cursor !== undefined) this.recreating = false;
    this.onCursor();
  }
}
