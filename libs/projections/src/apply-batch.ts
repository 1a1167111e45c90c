import type { RecordedEvent } from '@ledger/event-store';
import type { Redis } from 'ioredis';
import { applyDigestChange, digestChange } from './digest';
import { indexMember } from './index-member';
import { APPLY_BATCH, runScript } from './lua-scripts';
import { AnyDocumentProjection, BatchWrites, diffBatch, foldRouted, parseStoredDocument, routeBatch, StoredDocument } from './projection';
import { digestField, Pointer, RedisLayout } from './redis-layout';

/**
 * The one way events reach a model, live and during a rebuild: load the
 * documents the batch touches, fold the events over them in memory, then
 * write documents, index changes, the new checkpoint and digest in one atomic
 * step that only happens if `pointerKey` still says `cursor` (optimistic
 * concurrency: a concurrent writer, a switch of generation or lost data all
 * make it fail). Returns where the generation stands after the batch, or null
 * when nothing was written because the pointer had moved; the caller re-reads
 * it and decides.
 */
export async function applyBatch(
  redis: Redis,
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  pointerKey: string,
  cursor: Pointer,
  events: readonly RecordedEvent[],
): Promise<Pointer | null> {
  const { name } = projection;
  const { generation } = cursor;
  const routed = routeBatch(projection, events);
  const { ids } = routed;
  const stored = ids.length === 0 ? [] : await redis.mget(ids.map((id) => layout.doc(name, generation, id)));
  const before = new Map<string, StoredDocument<unknown> | null>();
  const docs = new Map<string, unknown>();
  ids.forEach((id, i) => {
    const text = stored[i];
    const document = text == null ? null : parseStoredDocument(text);
    before.set(id, document);
    docs.set(id, document?.doc ?? null);
  });
  foldRouted(projection, docs, routed);
  const writes = diffBatch(projection, before, docs);
  const checkpoint = events[events.length - 1].position;
  const digest = cursor.digest === undefined ? undefined : applyDigestChange(cursor.digest, digestChange(before, writes));
  const { keys, args } = toOperations(layout, name, generation, before, writes);
  const applied = await runScript(
    redis,
    APPLY_BATCH,
    [pointerKey, layout.keySet(name, generation), ...keys],
    [
      generation,
      cursor.checkpoint,
      checkpoint,
      digest === undefined ? '' : digestField(checkpoint, digest),
      // Lua counts bytes.
      Buffer.byteLength(layout.generationBase(name, generation)),
      ...args,
    ],
  );
  return applied === 1 ? { ...cursor, checkpoint, digest } : null;
}

/** The script's keys and its (operation, value) arguments, in the same order. */
function toOperations(
  layout: RedisLayout,
  name: string,
  generation: string,
  before: ReadonlyMap<string, StoredDocument<unknown> | null>,
  writes: BatchWrites,
): { keys: string[]; args: string[] } {
  const keys: string[] = [];
  const args: string[] = [];
  const indexKey = (index: string, value: string) => {
    if (index.includes(':')) throw new Error(`projection ${name}: index name "${index}" contains ':'`);
    return layout.index(name, generation, index, value);
  };
  for (const { id, text } of writes.put) {
    keys.push(layout.doc(name, generation, id));
    args.push(before.get(id) ? 'set' : 'add', text);
  }
  for (const id of writes.remove) {
    keys.push(layout.doc(name, generation, id));
    args.push('del', '');
  }
  for (const e of writes.indexRemove) {
    keys.push(indexKey(e.index, e.value));
    args.push('zrem', indexMember(e.sortKey, e.id));
  }
  for (const e of writes.indexAdd) {
    keys.push(indexKey(e.index, e.value));
    args.push('zadd', indexMember(e.sortKey, e.id));
  }
  return { keys, args };
}
