import type { RecordedEvent } from '@ledger/event-store';
import type { Redis } from 'ioredis';
import { indexMember } from './index-member';
import { APPLY_BATCH, runScript } from './lua-scripts';
import { AnyDocumentProjection, BatchWrites, diffBatch, evolveBatch, touchedIds } from './projection';
import { Pointer, RedisLayout } from './redis-layout';

interface Operation {
  key: string;
  op: 'set' | 'del' | 'zadd' | 'zrem';
  value: string;
}

/**
 * The one way events reach a model, live and during a rebuild: load the
 * documents the batch touches, fold the events over them in memory, then
 * write documents, index changes and the new checkpoint in one atomic step
 * that only happens if `pointerKey` still says `cursor` (optimistic
 * concurrency: a concurrent writer, a switch of generation or lost data all
 * make it fail). Returns false when nothing was written because the pointer
 * had moved; the caller re-reads it and decides.
 */
export async function applyBatch(
  redis: Redis,
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  pointerKey: string,
  cursor: Pointer,
  events: readonly RecordedEvent[],
): Promise<boolean> {
  const { name } = projection;
  const { generation } = cursor;
  const ids = touchedIds(projection, events);
  const stored = ids.length === 0 ? [] : await redis.mget(ids.map((id) => layout.doc(name, generation, id)));
  const before = new Map(ids.map((id, i) => [id, stored[i] == null ? null : JSON.parse(stored[i] as string)]));
  const operations = toOperations(layout, name, generation, diffBatch(projection, before, evolveBatch(projection, before, events)));
  const checkpoint = events[events.length - 1].position;
  const applied = await runScript(
    redis,
    APPLY_BATCH,
    [pointerKey, ...operations.map((o) => o.key)],
    [generation, cursor.checkpoint, checkpoint, ...operations.flatMap((o) => [o.op, o.value])],
  );
  return applied === 1;
}

function toOperations(layout: RedisLayout, name: string, generation: string, writes: BatchWrites<unknown>): Operation[] {
  const indexKey = (index: string, value: string) => {
    if (index.includes(':')) throw new Error(`projection ${name}: index name "${index}" contains ':'`);
    return layout.index(name, generation, index, value);
  };
  return [
    ...writes.put.map(({ id, doc }): Operation => ({ key: layout.doc(name, generation, id), op: 'set', value: JSON.stringify(doc) })),
    ...writes.remove.map((id): Operation => ({ key: layout.doc(name, generation, id), op: 'del', value: '' })),
    ...writes.indexRemove.map((e): Operation => ({ key: indexKey(e.index, e.value), op: 'zrem', value: indexMember(e.sortKey, e.id) })),
    ...writes.indexAdd.map((e): Operation => ({ key: indexKey(e.index, e.value), op: 'zadd', value: indexMember(e.sortKey, e.id) })),
  ];
}
