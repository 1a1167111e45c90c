import { randomBytes } from 'node:crypto';

/**
 * Where a projection lives in Redis. A model is written in generations so
 * that a rebuild can fill a new one beside the live one and switch to it in
 * one step:
 *
 *   {prefix}:projection:{name}                      pointer hash { version, generation, checkpoint }
 *   {prefix}:projection:{name}:building             the same for a generation being rebuilt
 *   {prefix}:rm:{name}:{generation}:doc:{id}        a document (JSON)
 *   {prefix}:rm:{name}:{generation}:idx:{index}:{value}   a sorted set of index members (index-member.ts)
 *
 * `checkpoint` is the position of the last event the generation has absorbed.
 */
export interface Pointer {
  version: number;
  generation: string;
  checkpoint: number;
}

export type GenerationKey = { kind: 'doc'; id: string } | { kind: 'index'; index: string; value: string };

export class RedisLayout {
  constructor(readonly prefix: string) {}

  pointer(name: string): string {
    return `${this.prefix}:projection:${name}`;
  }

  building(name: string): string {
    return `${this.prefix}:projection:${name}:building`;
  }

  /** What every generation's keys of this projection start with; the generation follows. */
  modelBase(name: string): string {
    return `${this.prefix}:rm:${name}:`;
  }

  doc(name: string, generation: string, id: string): string {
    return this.modelBase(name) + generation + docSuffix(id);
  }

  index(name: string, generation: string, index: string, value: string): string {
    return this.modelBase(name) + generation + indexSuffix(index, value);
  }

  /** A SCAN pattern matching every key of one generation. */
  generationPattern(name: string, generation: string): string {
    return `${escapeGlob(this.modelBase(name) + generation)}:*`;
  }

  /** What a key found by `generationPattern` holds. */
  parseGenerationKey(name: string, generation: string, key: string): GenerationKey {
    const rest = key.slice((this.modelBase(name) + generation).length);
    if (rest.startsWith(docSuffix(''))) return { kind: 'doc', id: rest.slice(docSuffix('').length) };
    const entry = rest.slice(':idx:'.length);
    const separator = entry.indexOf(':');
    return { kind: 'index', index: entry.slice(0, separator), value: entry.slice(separator + 1) };
  }
}

export function docSuffix(id: string): string {
  return `:doc:${id}`;
}

export function indexSuffix(index: string, value: string): string {
  return `:idx:${index}:${value}`;
}

/** A fresh, unguessable generation id, so a model rebuilt after Redis lost its data never meets stale keys. */
export function newGeneration(): string {
  return randomBytes(6).toString('hex');
}

/** Reads a pointer hash (HGETALL); null when it does not exist. */
export function parsePointer(hash: Record<string, string>): Pointer | null {
  if (hash.generation === undefined) return null;
  return { version: Number(hash.version), generation: hash.generation, checkpoint: Number(hash.checkpoint) };
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
