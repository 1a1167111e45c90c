import { hash } from 'node:crypto';
import { canonicalJson } from '@ledger/event-store';
import { scanGeneration } from './generation-keys';
import { parseIndexMember } from './index-member';
import { documentCodec } from './document-compression';
import { groupedId, type AnyDocumentProjection, type BatchWrites, type IndexEntry, type StoredDocument } from './projection';
import { RedisLayout } from './redis-layout';
import { fromRedisText } from './redis-text';
import type { RedisClient } from '@ledger/platform';

/** The content of one generation, independent of where it is stored. */
export interface ModelContent {
  docs: Array<{ id: string; doc: unknown }>;
  indexes: Array<{ index: string; value: string; members: Array<{ id: string; sortKey?: string }> }>;
}

/** The digest of a model with no documents and no index entries. */
export const EMPTY_DIGEST = '0'.repeat(64);

/**
 * The XOR of the SHA-256 of every entry of the model (hex): each document as
 * the canonical JSON line `["doc", id, doc]`, each index member as
 * `["index", index, value, [sortKey, id]]` (a member without a sort key as
 * its bare id). Two models have the same digest exactly when they hold the
 * same content (barring a SHA-256 collision), however they were built.
 *
 * A combination that ignores order and undoes itself (x ^ x = 0) lets the
 * runner keep a model's digest as it writes it (decision 0047): replacing a
 * document toggles out the hash of its old text and in the hash of the new,
 * so no pass over the model is needed to answer it.
 */
export function digestModel(content: ModelContent): string {
  const digest = Buffer.alloc(32);
  for (const { id, doc } of content.docs) toggle(digest, documentEntry(id, canonicalJson(doc)));
  for (const { index, value, members } of content.indexes) {
    for (const { id, sortKey } of members) toggle(digest, memberEntry({ index, value, sortKey }, id));
  }
  return digest.toString('hex');
}

/** What a batch's writes change in the digest: XOR it into the digest the model had before them. */
export function digestChange<TDoc>(before: ReadonlyMap<string, StoredDocument<TDoc> | null>, writes: BatchWrites): Buffer {
  const change = Buffer.alloc(32);
  const replaced = (id: string) => {
    const previous = before.get(id);
    if (previous) toggle(change, documentEntry(id, previous.text));
  };
  for (const { id, text } of writes.put) {
    replaced(id);
    toggle(change, documentEntry(id, text));
  }
  for (const id of writes.remove) replaced(id);
  for (const { id, ...entry } of writes.indexAdd) toggle(change, memberEntry(entry, id));
  for (const { id, ...entry } of writes.indexRemove) toggle(change, memberEntry(entry, id));
  return change;
}

/** `digest` (hex) with `change` applied. */
export function applyDigestChange(digest: string, change: Buffer): string {
  const next = Buffer.from(digest, 'hex');
  for (let i = 0; i < next.length; i++) next[i] ^= change[i];
  return next.toString('hex');
}

/** canonicalJson(['doc', id, doc]), from the document's canonical text. */
function documentEntry(id: string, text: string): string {
  return `["doc",${JSON.stringify(id)},${text}]`;
}

function memberEntry({ index, value, sortKey }: IndexEntry, id: string): string {
  return JSON.stringify(['index', index, value, sortKey ? [sortKey, id] : id]);
}

function toggle(digest: Buffer, entry: string): void {
  const entryHash = hash('sha256', entry, 'buffer');
  for (let i = 0; i < 32; i++) digest[i] ^= entryHash[i];
}

/** Reads everything one generation holds. */
export async function readGeneration(redis: RedisClient, layout: RedisLayout, projection: AnyDocumentProjection, generation: string): Promise<ModelContent> {
  const { name } = projection;
  const codec = documentCodec(projection);
  const content: ModelContent = { docs: [], indexes: [] };
  for await (const keys of scanGeneration(redis, layout, name, generation)) {
    const parsed = keys.map((key) => ({ key, ...layout.parseGenerationKey(name, generation, key) }));
    const pipeline = redis.pipeline();
    for (const entry of parsed) {
      if (entry.kind === 'doc') pipeline.getBuffer(entry.key);
      else if (entry.kind === 'group') pipeline.hgetallBuffer(entry.key);
      else pipeline.zrange(entry.key, '-', '+', 'BYLEX');
    }
    const replies = (await pipeline.exec()) ?? [];
    parsed.forEach((entry, i) => {
      const [error, reply] = replies[i];
      if (error) throw error;
      // A key deleted between SCAN and the read was not part of the model any more.
      if (reply === null) return;
      if (entry.kind === 'doc') content.docs.push({ id: entry.id, doc: JSON.parse(codec.decode(reply as Buffer)) });
      else if (entry.kind === 'group') {
        for (const [field, stored] of Object.entries(reply as Record<string, Buffer>)) {
          content.docs.push({ id: groupedId(entry.group, fromRedisText(field)), doc: JSON.parse(codec.decode(stored)) });
        }
      } else if ((reply as string[]).length > 0) {
        content.indexes.push({ index: entry.index, value: entry.value, members: (reply as string[]).map(parseIndexMember) });
      }
    });
  }
  return content;
}
