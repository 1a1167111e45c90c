import { runScript, type RedisClient } from '@ledger/platform';
import { applyDigestChange, EMPTY_DIGEST } from './digest';
import { MERGE_PARTITIONS, OPEN_PARTITION } from './lua-scripts';
import { readPointer } from './pointer';
import type { AnyDocumentProjection } from './projection';
import { digestField, Pointer, RedisLayout } from './redis-layout';

/**
 * A rebuild in partitions (decision 0087). One thread folds every event of
 * the ledger into every document, so a rebuild's speed is one core's. The
 * documents of a projection are independent of each other: each is folded
 * from the events routed to it alone, and its index entries are its own. So
 * `count` workers can each fill a share of the same building generation,
 * partition `index` taking the documents whose id hashes to it, each on a
 * partition pointer of its own (its checkpoint, and the digest of its
 * documents' changes), all up to the same position. Digests combine by XOR
 * (digest.ts), so the merge sets the building generation to that position
 * with the digest its partitions make together, and the rebuild goes on from
 * there as it would have.
 */
export interface RebuildPartitions {
  /** How many partitions; 1 is no partitioning. */
  count: number;
  /**
   * Fills partition `index` of every projection being rebuilt up to position
   * `until` (`fillPartition`, in another thread or process); resolves once
   * it has, with how many events it read.
   */
  fill(index: number, until: number): Promise<number>;
}

export interface Partition {
  index: number;
  count: number;
}

/**
 * Whether partition `index` of `count` holds the document `id`: the id's
 * 32-bit FNV-1a hash (over its UTF-16 code units), modulo `count`. Every
 * partition routes every event of the ledger, so the hash must be cheap; it
 * need not be unpredictable, only the same in every thread and spread out.
 */
export function inPartition(id: string, { index, count }: Partition): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count === index;
}

/** The projection as partition `partition` folds it: only the documents of that partition. */
export function partitionOf(projection: AnyDocumentProjection, partition: Partition): AnyDocumentProjection {
  return { ...projection, route: (event) => projection.route(event).filter((id) => inPartition(id, partition)) };
}

/** Points the partition at the building generation (OPEN_PARTITION) and reads where it stands; null when nothing is being built. */
export async function openPartition(redis: RedisClient, layout: RedisLayout, name: string, partition: Partition): Promise<Pointer | null> {
  const key = layout.buildingPartition(name, partition.index, partition.count);
  const opened = await runScript(redis, OPEN_PARTITION, [key, layout.building(name)], [EMPTY_DIGEST]);
  return opened === 1 ? readPointer(redis, key) : null;
}

/**
 * Moves the building generation from `base` to `until`, where every
 * partition must stand, with the digest they make together (MERGE_PARTITIONS).
 * Throws when one has not got there: its fill failed or was stopped.
 */
export async function mergePartitions(redis: RedisClient, layout: RedisLayout, name: string, base: Pointer, count: number, until: number): Promise<void> {
  const keys = Array.from({ length: count }, (_, index) => layout.buildingPartition(name, index, count));
  const partitions = await Promise.all(keys.map((key) => readPointer(redis, key)));
  let digest = base.digest;
  for (const partition of partitions) {
    digest = digest === undefined || partition?.digest === undefined ? undefined : applyDigestChange(digest, Buffer.from(partition.digest, 'hex'));
  }
  const merged = await runScript(redis, MERGE_PARTITIONS, [layout.building(name), ...keys], [
    base.generation,
    base.checkpoint,
    until,
    digest === undefined ? '' : digestField(until, digest),
  ]);
  if (merged !== 1) throw new Error(`projection ${name}: not every partition of its rebuild reached position ${until}`);
}
