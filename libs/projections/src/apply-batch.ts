import type { RecordedEvent } from '@ledger/event-store';
import { runScript, type RedisClient } from '@ledger/platform';
import { applyDigestChange, digestChange } from './digest';
import { documentCodec } from './document-compression';
import { indexMember } from './index-member';
import { APPLY_BATCH } from './lua-scripts';
import { AnyDocumentProjection, BatchWrites, diffBatch, foldRouted, parseStoredDocument, routeBatch, RoutedBatch, StoredDocument } from './projection';
import { digestField, documentPlace, Pointer, RedisLayout } from './redis-layout';

/** A batch's events, routed, with the canonical text of every document they touch as it was before them (null when absent), in `routed.ids` order. */
export interface LoadedBatch {
  events: readonly RecordedEvent[];
  routed: RoutedBatch;
  stored: ReadonlyArray<string | null>;
}

/** Where the generation stands after a batch, and, when asked, the next batch loaded as the batch left the generation. */
export interface AppliedBatch {
  pointer: Pointer;
  next?: LoadedBatch;
}

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
  redis: RedisClient,
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  pointerKey: string,
  cursor: Pointer,
  events: readonly RecordedEvent[],
): Promise<Pointer | null> {
  const batch = await loadBatch(redis, layout, projection, cursor.generation, events);
  return (await writeBatch(redis, layout, projection, pointerKey, cursor, batch))?.pointer ?? null;
}

/** Routes the events and reads the documents they touch (one MGET, or for a grouped projection one HGET each, pipelined). */
export async function loadBatch(
  redis: RedisClient,
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  generation: string,
  events: readonly RecordedEvent[],
): Promise<LoadedBatch> {
  const routed = routeBatch(projection, events);
  const places = routed.ids.map((id) => placeOf(layout, projection, generation, id));
  let stored: Array<Buffer | null> = [];
  if (places.length > 0 && projection.grouped) {
    const replies = (await places.reduce((pipeline, { key, field }) => pipeline.hgetBuffer(key, field), redis.pipeline()).exec()) ?? [];
    stored = replies.map(([error, reply]) => {
      if (error) throw error;
      return reply as Buffer | null;
    });
  } else if (places.length > 0) {
    stored = await redis.mgetBuffer(places.map(({ key }) => key));
  }
  return { events, routed, stored: decodeAll(projection, stored) };
}

/** The key a document is kept under in `generation`, and its field there ('' for a document of its own). */
function placeOf(layout: RedisLayout, projection: AnyDocumentProjection, generation: string, id: string): { key: string; field: string } {
  const { suffix, field } = documentPlace(projection.grouped, id);
  return { key: layout.generationBase(projection.name, generation) + suffix, field };
}

/**
 * The second half of `applyBatch`, on a batch already loaded. With `next`
 * (the events of the batch after this one), the script that writes this
 * batch also reads the documents the next one touches, as this one leaves
 * them, in the same atomic step: a rebuild then makes one round trip to
 * Redis per batch instead of two. Null when the pointer had moved (nothing
 * written, nothing read).
 */
export async function writeBatch(
  redis: RedisClient,
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  pointerKey: string,
  cursor: Pointer,
  { events, routed, stored }: LoadedBatch,
  next?: readonly RecordedEvent[],
): Promise<AppliedBatch | null> {
  const { generation } = cursor;
  const before = new Map<string, StoredDocument<unknown> | null>();
  const docs = new Map<string, unknown>();
  routed.ids.forEach((id, i) => {
    const text = stored[i];
    const document = text == null ? null : parseStoredDocument(text);
    before.set(id, document);
    docs.set(id, document?.doc ?? null);
  });
  foldRouted(projection, docs, routed);
  const writes = diffBatch(projection, before, docs);
  const checkpoint = events[events.length - 1].position;
  const digest = cursor.digest === undefined ? undefined : applyDigestChange(cursor.digest, digestChange(before, writes));
  const { keys, args } = toOperations(layout, projection, generation, writes);
  const following = next === undefined ? undefined : { events: next, routed: routeBatch(projection, next) };
  const reads = following?.routed.ids.map((id) => placeOf(layout, projection, generation, id)) ?? [];
  const reply = (await runScript(
    redis,
    APPLY_BATCH,
    [pointerKey, ...keys, ...reads.map(({ key }) => key)],
    [
      generation,
      cursor.checkpoint,
      checkpoint,
      digest === undefined ? '' : digestField(checkpoint, digest),
      reads.length,
      projection.grouped ? 'hash' : '',
      ...args,
      ...(projection.grouped ? reads.map(({ field }) => field) : []),
    ],
    { replies: 'buffers' },
  )) as [number, ...Array<Buffer | null>];
  if (reply[0] !== 1) return null;
  const pointer = { ...cursor, checkpoint, digest };
  return following === undefined ? { pointer } : { pointer, next: { ...following, stored: decodeAll(projection, reply.slice(1) as Array<Buffer | null>) } };
}

/** Documents as Redis returned them, as their canonical text. */
function decodeAll(projection: AnyDocumentProjection, stored: ReadonlyArray<Buffer | null>): Array<string | null> {
  const codec = documentCodec(projection);
  return stored.map((bytes) => (bytes === null ? null : codec.decode(bytes)));
}

/**
 * The script's keys and its (operation, field, value) arguments, in the same order.
 * Documents go as Buffers, as the projection stores them: ioredis then copies
 * each into one Buffer for the command, where strings would be joined into
 * one string and encoded again on the socket (a batch is up to a megabyte of
 * documents).
 */
function toOperations(
  layout: RedisLayout,
  projection: AnyDocumentProjection,
  generation: string,
  writes: BatchWrites,
): { keys: string[]; args: Array<string | Buffer> } {
  const { name } = projection;
  const codec = documentCodec(projection);
  const keys: string[] = [];
  const args: Array<string | Buffer> = [];
  const indexKey = (index: string, value: string) => {
    if (index.includes(':')) throw new Error(`projection ${name}: index name "${index}" contains ':'`);
    return layout.index(name, generation, index, value);
  };
  for (const { id, text } of writes.put) {
    const { key, field } = placeOf(layout, projection, generation, id);
    keys.push(key);
    args.push(projection.grouped ? 'hset' : 'set', field, codec.encode(text));
  }
  for (const id of writes.remove) {
    const { key, field } = placeOf(layout, projection, generation, id);
    keys.push(key);
    args.push(projection.grouped ? 'hdel' : 'del', field, '');
  }
  for (const e of writes.indexRemove) {
    keys.push(indexKey(e.index, e.value));
    args.push('zrem', '', indexMember(e.sortKey, e.id));
  }
  for (const e of writes.indexAdd) {
    keys.push(indexKey(e.index, e.value));
    args.push('zadd', '', indexMember(e.sortKey, e.id));
  }
  return { keys, args };
}
