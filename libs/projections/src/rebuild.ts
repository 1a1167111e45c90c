import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { type Clock, runScript } from '@ledger/platform';
import type { Redis } from 'ioredis';
import { LoadedBatch, loadBatch, writeBatch } from './apply-batch';
import { EMPTY_DIGEST } from './digest';
import { deleteGenerations, RetiredGeneration } from './generation-keys';
import { OPEN_BUILDING, SWITCH_GENERATION } from './lua-scripts';
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
  redis: Redis;
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

/** One projection's generation being filled by `rebuildProjections`. */
interface Building {
  projection: AnyDocumentProjection;
  key: string;
  /** Where its generation stands; null once it is switched or no longer ours to fill. */
  cursor: Pointer | null;
  events: number;
  /** The next page's documents, read by the script that wrote this page (none after a refused batch). */
  loaded?: LoadedBatch;
}

/**
 * `rebuildProjection` for several projections at once, each in its own
 * generation with its own building pointer, checkpoint and switch, exactly as
 * if rebuilt alone; but each page of the log is read (and parsed) once for
 * all of them, and their batches are written concurrently. A projection whose
 * generation is further ahead (resumed, or filled by another process) takes
 * only the events past its own checkpoint. Returns the events each absorbed,
 * in the order given.
 */
export async function rebuildProjections(
  context: RebuildContext,
  projections: readonly AnyDocumentProjection[],
  options: { onProgress?: (progress: RebuildProgress) => void; signal?: AbortSignal } = {},
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
    await buildAndSwitch(context, builds, retired, options);
  } finally {
    await deleteGenerations(redis, layout, retired);
  }
  return builds.map((b) => b.events);
}

/** Fills the building generations from the store and switches each to live once caught up (see rebuildProjections). */
async function buildAndSwitch(
  context: RebuildContext,
  builds: Building[],
  retired: RetiredGeneration[],
  options: { onProgress?: (progress: RebuildProgress) => void; signal?: AbortSignal },
): Promise<void> {
  const { store, redis, layout, batchSize, clock } = context;

  const startedAt = clock.now();
  let active = builds.filter((b) => b.cursor !== null);
  const readFrom = () => store.readAll({ after: Math.min(...active.map((b) => b.cursor!.checkpoint)), maxCount: batchSize });
  const readAfter = (full: RecordedEvent[]) => {
    const read = store.readAll({ after: full[full.length - 1].position, maxCount: batchSize });
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
    active = active.filter((b) => b.cursor !== null);
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
