import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { type Clock, runScript, type RedisClient } from '@ledger/platform';
import { LoadedBatch, loadBatch, writeBatch } from './apply-batch';
import { EMPTY_DIGEST } from './digest';
import { deleteGenerations, RetiredGeneration } from './generation-keys';
import { OPEN_BUILDING, SWITCH_GENERATION } from './lua-scripts';
import { mergePartitions, openPartition, Partition, partitionOf, RebuildPartitions } from './partitions';
import { readPointer } from './pointer';
import { AnyDocumentProjection } from './projection';
import { digestField, newGeneration, Pointer, RedisLayout } from './redis-layout';

export interface RebuildProgress {
  name: string;
  /** Events absorbed by this rebuild so far. */
  events: number;
  /** The position the new generation has reached. */
  position: number;
  /** The store's head position. */
  head: number;
  ratePerSecond: number;
  /** Assumes one event per position (true of the SQLite store). */
  etaSeconds: number;
}

export interface RebuildContext {
  store: EventStore;
  redis: RedisClient;
  layout: RedisLayout;
  batchSize: number;
  clock: Clock;
}

export function measureProgress(name: string, events: number, position: number, head: number, elapsedMs: number): RebuildProgress {
  const ratePerSecond = (events * 1000) / Math.max(elapsedMs, 1);
  const etaSeconds = ratePerSecond > 0 ? Math.max(head - position, 0) / ratePerSecond : 0;
  return { name, events, position, head, ratePerSecond, etaSeconds };
}

/**
 * Rebuilds a projection from position 0 into a new generation beside the live
 * one, which keeps serving (and may keep advancing, in this or another
 * process). When the new generation has caught up with the live checkpoint,
 * one atomic step makes it live; then the old generation is deleted. A live
 * runner notices the switch when its next write is refused and continues on
 * the new generation.
 *
 * Stopped by `signal`, the half-built generation stays under the building
 * pointer and the next rebuild of the same version resumes it. Returns the
 * number of events this call absorbed.
 */
export async function rebuildProjection(
  context: RebuildContext,
  projection: AnyDocumentProjection,
  options: { onProgress?: (progress: RebuildProgress) => void; signal?: AbortSignal } = {},
): Promise<number> {
  const [events] = await rebuildProjections(context, [projection], options);
  return events;
}

/** How long a partition's fill waits for events up to its position that the store does not show yet. */
const VISIBILITY_POLL_MS = 20;
const nextPoll = () => delay(VISIBILITY_POLL_MS);

/** One projection's generation being filled by `rebuildProjections`, or one partition of it. */
interface Building {
  projection: AnyDocumentProjection;
  key: string;
  /** Where its generation stands; null once it is switched or no longer ours to fill. */
  cursor: Pointer | null;
  events: number;
  /** The next page's documents, read by the script that wrote this page (none after a refused batch). */
  loaded?: LoadedBatch;
}

export interface RebuildOptions {
  onProgress?: (progress: RebuildProgress) => void;
  signal?: AbortSignal;
  /** Fill the generations in partitions, each on a core of its own, before the rebuild catches up and switches (partitions.ts). */
  partitions?: RebuildPartitions;
}

/**
 * `rebuildProjection` for several projections at once, each in its own
 * generation with its own building pointer, checkpoint and switch, exactly as
 * if rebuilt alone; but each page of the log is read (and parsed) once for
 * all of them, and their batches are written concurrently. A projection whose
 * generation is further ahead (resumed, or filled by another process) takes
 * only the events past its own checkpoint. With `partitions`, the
 * generations are first filled up to the store's head by the partitions,
 * then this call takes what was appended since and switches. Returns the
 * events each absorbed, in the order given.
 */
export async function rebuildProjections(
  context: RebuildContext,
  projections: readonly AnyDocumentProjection[],
  options: RebuildOptions = {},
): Promise<number[]> {
  const { redis, layout } = context;
  const builds: Building[] = [];
  const replaced: RetiredGeneration[] = [];
  for (const projection of projections) {
    const key = layout.building(projection.name);
    const generation = (await runScript(redis, OPEN_BUILDING, [key], [projection.version, newGeneration(), digestField(0, EMPTY_DIGEST)])) as string;
    if (generation) replaced.push({ name: projection.name, generation });
    builds.push({ projection, key, cursor: await readPointer(redis, key), events: 0 });
  }
  await deleteGenerations(redis, layout, replaced);
  // The live generations switched away from, deleted together once the loop ends, however it ends.
  const retired: RetiredGeneration[] = [];
  try {
    if (options.partitions && options.partitions.count > 1) await fillInPartitions(context, builds, options.partitions);
    await fillBuilds(context, builds, options, retired);
  } finally {
    await deleteGenerations(redis, layout, retired);
  }
  return builds.map((b) => b.events);
}

/**
 * Fills the building generations up to the store's head now in partitions,
 * all at once, and merges each projection's partitions into its generation.
 */
async function fillInPartitions(context: RebuildContext, builds: Building[], partitions: RebuildPartitions): Promise<void> {
  const { store, redis, layout } = context;
  const until = await store.headPosition();
  const open = builds.filter((b) => b.cursor !== null && b.cursor.checkpoint < until);
  if (open.length === 0) return;
  // Every partition is let finish before a failure is reported: none goes on filling after the rebuild has ended.
  const outcomes = await Promise.allSettled(Array.from({ length: partitions.count }, (_, index) => partitions.fill(index, until)));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  const events = Math.max(...outcomes.map((outcome) => (outcome as PromiseFulfilledResult<number>).value));
  for (const b of open) {
    await mergePartitions(redis, layout, b.projection.name, b.cursor!, partitions.count, until);
    b.cursor = await readPointer(redis, b.key);
    b.events += events;
  }
}

/**
 * One partition's share of a rebuild in partitions (`RebuildPartitions.fill`):
 * fills partition `partition` of the generation each projection is being
 * rebuilt into, up to position `until`, resuming where an earlier fill of
 * the same generation stopped. Returns how many events it read.
 */
export async function fillPartition(
  context: RebuildContext,
  projections: readonly AnyDocumentProjection[],
  partition: Partition,
  until: number,
  options: { onProgress?: (progress: RebuildProgress) => void; signal?: AbortSignal } = {},
): Promise<number> {
  const builds: Building[] = [];
  for (const projection of projections) {
    const cursor = await openPartition(context.redis, context.layout, projection.name, partition);
    const key = context.layout.buildingPartition(projection.name, partition.index, partition.count);
    builds.push({ projection: partitionOf(projection, partition), key, cursor, events: 0 });
  }
  await fillBuilds(context, builds, { ...options, until });
  return Math.max(0, ...builds.map((b) => b.events));
}

/**
 * Fills the building generations from the store and switches each to live
 * once caught up (see rebuildProjections). With `until`, fills them up to
 * that position and stops there, switching nothing: a partition's share of
 * the work (partitions.ts), its builds on partition pointers.
 */
async function fillBuilds(
  context: RebuildContext,
  builds: Building[],
  options: { onProgress?: (progress: RebuildProgress) => void; signal?: AbortSignal; until?: number },
  retired: RetiredGeneration[] = [],
): Promise<void> {
  const { store, redis, layout, batchSize, clock } = context;
  const { until } = options;

  const startedAt = clock.now();
  const open = (b: Building) => b.cursor !== null && (until === undefined || b.cursor.checkpoint < until);
  let active = builds.filter(open);
  const upToUntil = (events: RecordedEvent[]) => (until === undefined || events.length === 0 || events[events.length - 1].position <= until ? events : events.filter((event) => event.position <= until));
  const readFrom = () => store.readAll({ after: Math.min(...active.map((b) => b.cursor!.checkpoint)), maxCount: batchSize }).then(upToUntil);
  const readAfter = (full: RecordedEvent[]) => {
    const read = store.readAll({ after: full[full.length - 1].position, maxCount: batchSize }).then(upToUntil);
    // Awaited later; a rejection before then must not count as unhandled.
    read.catch(() => undefined);
    return read;
  };
  // Pages are read one ahead, so that each batch's script can also read the documents of the next page's batch (writeBatch).
  let page: RecordedEvent[] | undefined;
  let following: Promise<RecordedEvent[]> | undefined;
  while (active.length > 0 && !options.signal?.aborted) {
    page ??= await readFrom();
    const next = page.length === batchSize ? await (following ?? readAfter(page)) : undefined;
    following = undefined;
    let refused = false;
    if (page.length > 0) {
      // Only the progress report needs the head: on PostgreSQL a round trip, made while the batches are written rather than before them.
      const head = store.headPosition();
      head.catch(() => undefined);
      const current = page;
      const written = Promise.all(
        active.map(async (b) => {
          const cursor = b.cursor!;
          const events = current[0].position > cursor.checkpoint ? current : current.filter((event) => event.position > cursor.checkpoint);
          // Documents read ahead are for exactly these events (the page after a batch that was written), else they are read now.
          const loaded = b.loaded?.events === events ? b.loaded : undefined;
          b.loaded = undefined;
          if (events.length === 0) return;
          const batch = loaded ?? (await loadBatch(redis, layout, b.projection, cursor.generation, events));
          const applied = await writeBatch(redis, layout, b.projection, b.key, cursor, batch, next?.length ? next : undefined);
          if (applied === null) {
            // Another process is filling the same generation: go on from where it got to.
            refused = true;
            const pointer = await readPointer(redis, b.key);
            b.cursor = pointer?.generation === cursor.generation ? pointer : null;
            return;
          }
          b.cursor = applied.pointer;
          b.loaded = applied.next;
          b.events += events.length;
          options.onProgress?.(measureProgress(b.projection.name, b.events, b.cursor.checkpoint, await head, clock.now() - startedAt));
        }),
      );
      // The page after the next is read (synchronously, for SQLite) while Redis writes this one.
      if (next?.length === batchSize) following = readAfter(next);
      await written;
    }
    const full = page.length === batchSize;
    page = next;
    if (refused) {
      // A refused batch moved a cursor elsewhere: read from where the builds really stand.
      page = undefined;
      following = undefined;
    }
    active = active.filter(open);
    if (until !== undefined) {
      // Events up to `until` not yet visible (PostgreSQL shows a commit in position order): wait for them.
      if (!full && !refused && active.length > 0) await nextPoll();
      continue;
    }
    // A short page means we reached the head as it was when we read it. Under a
    // steady flow of appends the next page is never empty, so this is when to try.
    if (refused || full) continue;
    for (const b of active) {
      const { name, version } = b.projection;
      const [outcome, detail] = (await runScript(redis, SWITCH_GENERATION, [layout.pointer(name), b.key], [b.cursor!.generation])) as string[];
      switch (outcome) {
        case 'switched':
          if (detail) retired.push({ name, generation: detail });
          b.cursor = null;
          break;
        case 'gone':
          b.cursor = null;
          break;
        case 'superseded':
          throw new Error(`projection ${name}: the live model is version ${detail}, newer than this code's version ${version}`);
        case 'behind':
          // The live model absorbed events appended since our last read; read them too.
          if (Number(detail) > (await store.headPosition())) {
            throw new Error(`projection ${name}: the live model is at position ${detail}, beyond the store's head; is this the store it was built from?`);
          }
          break;
        default:
          throw new Error(`projection ${name}: unexpected switch outcome ${String(outcome)}`);
      }
    }
    active = active.filter((b) => b.cursor !== null);
  }
}
