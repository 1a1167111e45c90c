import { randomBytes } from 'node:crypto';
import { unitPrefix } from '@ledger/platform';
import { splitGroupedId } from './projection';
import { fromRedisText, toRedisText } from './redis-text';

/**
 * Where a projection lives in Redis. A model is written in generations so
 * that a rebuild can fill a new one beside the live one and switch to it in
 * one step:
 *
 *   {prefix}:projection:{name}                      pointer hash { version, generation, checkpoint, digest }
 *   {prefix}:projection:{name}:building             the same for a generation being rebuilt
 *   {prefix}:projection:{name}:building:{i}/{n}     the same for partition i of n of it (partitions.ts), plus `base`
 *   {prefix}:rm:{name}:{generation}:doc:{id}        a document (canonical JSON, or deflated: document-compression.ts)
 *   {prefix}:rm:{name}:{generation}:idx:{index}:{value}   a sorted set of index members (index-member.ts)
 *   {prefix}:rm:{name}:{generation}:grp:{group}     a hash of a grouped projection's documents, by field (projection.ts, `grouped`)
 *
 * On a Redis Cluster each projection is a unit (decision 0091): `{prefix}`
 * above is followed by a hash tag naming the projection, so its pointers
 * and every key of its generations are in one slot, as the scripts that
 * write and read them need.
 *
 * Ids, index values, groups and fields are written with their UUIDs
 * compacted (redis-text.ts).
 *
 * `checkpoint` is the position of the last event the generation has absorbed;
 * `digest` is `{checkpoint}:{digest}`, the model's digest (digest.ts) as of
 * that checkpoint, kept by every batch that writes the generation. A write
 * that does not keep it (a release before decision 0047, during a rolling
 * deploy) leaves it behind the checkpoint for good: from then on the
 * generation is untracked, and its digest is computed by reading it.
 */
export interface Pointer {
  version: number;
  generation: string;
  checkpoint: number;
  /** The digest as of `checkpoint`; undefined when the generation is untracked. */
  digest?: string;
  /**
   * Set on a generation started because the model was lost (decision 0078):
   * the store's head when it was started. Until `checkpoint` reaches it the
   * generation holds only part of what the ledger says, and no read takes
   * an answer from it.
   */
  rebuildingTo?: number;
}

export type GenerationKey = { kind: 'doc'; id: string } | { kind: 'index'; index: string; value: string } | { kind: 'group'; group: string };

export class RedisLayout {
  /** `clustered`: the keys are for a Redis Cluster, each projection's under a hash tag of its own. */
  constructor(
    readonly prefix: string,
    private readonly clustered = false,
  ) {}

  pointer(name: string): string {
    return `${this.unit(name)}:projection:${name}`;
  }

  building(name: string): string {
    return `${this.pointer(name)}:building`;
  }

  /** The pointer of one partition of the generation being rebuilt (partitions.ts). */
  buildingPartition(name: string, index: number, count: number): string {
    return `${this.building(name)}:${index}/${count}`;
  }

  /** What every generation's keys of this projection start with; the generation follows. */
  modelBase(name: string): string {
    return `${this.unit(name)}:rm:${name}:`;
  }

  /** What every key of one generation starts with; a document's or an index's suffix follows. */
  generationBase(name: string, generation: string): string {
    return this.modelBase(name) + generation;
  }

  doc(name: string, generation: string, id: string): string {
    return this.generationBase(name, generation) + docSuffix(id);
  }

  index(name: string, generation: string, index: string, value: string): string {
    return this.generationBase(name, generation) + indexSuffix(index, value);
  }

  /** The hash holding a group of a grouped projection's documents. */
  group(name: string, generation: string, group: string): string {
    return this.generationBase(name, generation) + groupSuffix(group);
  }

  /** The set of the suffixes of a generation's keys that releases before decision 0085 kept: deleted with its generation. */
  legacyKeySet(name: string, generation: string): string {
    return `${this.pointer(name)}:keys:${generation}`;
  }

  /** A SCAN pattern matching every key of every projection's generations. */
  modelsPattern(): string {
    return this.clustered ? `${escapeGlob(this.prefix)}:*:rm:*` : `${escapeGlob(this.prefix)}:rm:*`;
  }

  /** Where the keys of projection `name` start. */
  private unit(name: string): string {
    return unitPrefix(this.clustered, this.prefix, `rm:${name}`);
  }

  /** A SCAN pattern matching every key of one generation. */
  generationPattern(name: string, generation: string): string {
    return `${escapeGlob(this.generationBase(name, generation))}:*`;
  }

  /** What a key found by `generationPattern` holds. */
  parseGenerationKey(name: string, generation: string, key: string): GenerationKey {
    const rest = key.slice(this.generationBase(name, generation).length);
    if (rest.startsWith(docSuffix(''))) return { kind: 'doc', id: fromRedisText(rest.slice(docSuffix('').length)) };
    if (rest.startsWith(groupSuffix(''))) return { kind: 'group', group: fromRedisText(rest.slice(groupSuffix('').length)) };
    const entry = rest.slice(':idx:'.length);
    const separator = entry.indexOf(':');
    return { kind: 'index', index: entry.slice(0, separator), value: fromRedisText(entry.slice(separator + 1)) };
  }
}

export function docSuffix(id: string): string {
  return `:doc:${toRedisText(id)}`;
}

export function indexSuffix(index: string, value: string): string {
  return `:idx:${index}:${toRedisText(value)}`;
}

export function groupSuffix(group: string): string {
  return `:grp:${toRedisText(group)}`;
}

/**
 * Where a document is kept, after its generation's base: its own key (field
 * ''), or for a grouped projection a field of its group's hash.
 */
export function documentPlace(grouped: boolean | undefined, id: string): { suffix: string; field: string } {
  if (!grouped) return { suffix: docSuffix(id), field: '' };
  const { group, field } = splitGroupedId(id);
  return { suffix: groupSuffix(group), field: toRedisText(field) };
}

/** A fresh, unguessable generation id, so a model rebuilt after Redis lost its data never meets stale keys. */
export function newGeneration(): string {
  return randomBytes(6).toString('hex');
}

/** A pointer's `digest` field: the digest as of `checkpoint`. */
export function digestField(checkpoint: number, digest: string): string {
  return `${checkpoint}:${digest}`;
}

/** Reads a pointer hash (HGETALL); null when it does not exist. */
export function parsePointer(hash: Record<string, string>): Pointer | null {
  if (hash.generation === undefined) return null;
  const pointer: Pointer = { version: Number(hash.version), generation: hash.generation, checkpoint: Number(hash.checkpoint) };
  const separator = hash.digest?.indexOf(':') ?? -1;
  if (separator > 0 && hash.digest.slice(0, separator) === hash.checkpoint) pointer.digest = hash.digest.slice(separator + 1);
  if (hash.rebuildingTo !== undefined) pointer.rebuildingTo = Number(hash.rebuildingTo);
  return pointer;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
