import { createHash } from 'node:crypto';
import { canonicalJson } from '@ledger/event-store';
import type { Redis } from 'ioredis';
import { scanGeneration } from './generation-keys';
import { parseIndexMember } from './index-member';
import { RedisLayout } from './redis-layout';

/** The content of one generation, independent of where it is stored. */
export interface ModelContent {
  docs: Array<{ id: string; doc: unknown }>;
  indexes: Array<{ index: string; value: string; members: Array<{ id: string; sortKey?: string }> }>;
}

/**
 * SHA-256 (hex) over the documents and indexes, each in a canonical form and
 * a fixed order, so a model built event by event and one rebuilt from zero
 * have the same digest exactly when they hold the same content. A member
 * without a sort key hashes as its bare id, as it did before indexes had sort
 * keys, so a model without any keeps the digest it had.
 */
export function digestModel(content: ModelContent): string {
  const hash = createHash('sha256');
  for (const { id, doc } of [...content.docs].sort((a, b) => compare(a.id, b.id))) {
    hash.update(`${canonicalJson(['doc', id, doc])}\n`);
  }
  const indexes = [...content.indexes].sort((a, b) => compare(a.index, b.index) || compare(a.value, b.value));
  for (const { index, value, members } of indexes) {
    const ordered = [...members].sort((a, b) => compare(a.sortKey ?? '', b.sortKey ?? '') || compare(a.id, b.id));
    const canonical = ordered.map(({ id, sortKey }) => (sortKey ? [sortKey, id] : id));
    hash.update(`${canonicalJson(['index', index, value, canonical])}\n`);
  }
  return hash.digest('hex');
}

/** Reads everything one generation holds. */
export async function readGeneration(redis: Redis, layout: RedisLayout, name: string, generation: string): Promise<ModelContent> {
  const content: ModelContent = { docs: [], indexes: [] };
  for await (const keys of scanGeneration(redis, layout, name, generation)) {
    const parsed = keys.map((key) => ({ key, ...layout.parseGenerationKey(name, generation, key) }));
    const pipeline = redis.pipeline();
    for (const entry of parsed) {
      if (entry.kind === 'doc') pipeline.get(entry.key);
      else pipeline.zrange(entry.key, '-', '+', 'BYLEX');
    }
    const replies = (await pipeline.exec()) ?? [];
    parsed.forEach((entry, i) => {
      const [error, reply] = replies[i];
      if (error) throw error;
      // A key deleted between SCAN and the read was not part of the model any more.
      if (reply === null) return;
      if (entry.kind === 'doc') content.docs.push({ id: entry.id, doc: JSON.parse(reply as string) });
      else if ((reply as string[]).length > 0) {
        content.indexes.push({ index: entry.index, value: entry.value, members: (reply as string[]).map(parseIndexMember) });
      }
    });
  }
  return content;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
