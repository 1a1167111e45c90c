import type { EventStore } from '@ledger/event-store';
import type { Clock } from '@ledger/platform';
import type { Redis } from 'ioredis';
import { applyBatch } from './apply-batch';
import { deleteGeneration } from './generation-keys';
import { OPEN_BUILDING, runScript, SWITCH_GENERATION } from './lua-scripts';
import { readPointer } from './pointer';
import { AnyDocumentProjection } from './projection';
import { newGeneration, RedisLayout } from './redis-layout';

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
  const { store, redis, layout, batchSize, clock } = context;
  const { name, version } = projection;
  const buildingKey = layout.building(name);
  const replaced = (await runScript(redis, OPEN_BUILDING, [buildingKey], [version, newGeneration()])) as string;
  if (replaced) await deleteGeneration(redis, layout, name, replaced);

  const startedAt = clock.now();
  let events = 0;
  let cursor = await readPointer(redis, buildingKey);
  while (cursor !== null && !options.signal?.aborted) {
    const page = await store.readAll({ after: cursor.checkpoint, maxCount: batchSize });
    if (page.length > 0) {
      if (!(await applyBatch(redis, layout, projection, buildingKey, cursor, page))) {
        // Another process is filling the same generation: go on from where it got to.
        const current = await readPointer(redis, buildingKey);
        cursor = current?.generation === cursor.generation ? current : null;
        continue;
      }
      cursor = { ...cursor, checkpoint: page[page.length - 1].position };
      events += page.length;
      options.onProgress?.(measureProgress(name, events, cursor.checkpoint, await store.headPosition(), clock.now() - startedAt));
    }
    // A short page means we reached the head as it was when we read it. Under a
    // steady flow of appends the next page is never empty, so this is when to try.
    if (page.length === batchSize) continue;
    const [outcome, detail] = (await runScript(redis, SWITCH_GENERATION, [layout.pointer(name), buildingKey], [cursor.generation])) as string[];
    switch (outcome) {
      case 'switched':
        if (detail) await deleteGeneration(redis, layout, name, detail);
        return events;
      case 'gone':
        return events;
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
  return events;
}
