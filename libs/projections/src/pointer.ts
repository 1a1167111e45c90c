import { runScript, type RedisClient } from '@ledger/platform';
import { CREATE_POINTER } from './lua-scripts';
import { EMPTY_DIGEST } from './digest';
import { digestField, newGeneration, parsePointer, Pointer } from './redis-layout';

/**
 * What a runner does next, given the pointer it just read, its projection's
 * version and (while following) where its own cursor is.
 */
export type Step =
  /** No pointer (a new prefix, or Redis lost its data): start a new generation from position 0. */
  | { kind: 'create' }
  /** The model was built by an older version: rebuild it beside the live one. */
  | { kind: 'rebuild' }
  /** Newer code owns the model; this process must not write it. */
  | { kind: 'superseded'; version: number }
  /** (Re)subscribe after the pointer's checkpoint, on its generation. */
  | { kind: 'follow'; pointer: Pointer }
  /** Same generation, at or past our cursor (another process applied those events): keep the open subscription. */
  | { kind: 'continue'; pointer: Pointer };

export function nextStep(pointer: Pointer | null, version: number, cursor?: Pointer): Step {
  if (pointer === null) return { kind: 'create' };
  if (pointer.version < version) return { kind: 'rebuild' };
  if (pointer.version > version) return { kind: 'superseded', version: pointer.version };
  if (cursor && pointer.generation === cursor.generation && pointer.checkpoint >= cursor.checkpoint) {
    return { kind: 'continue', pointer };
  }
  return { kind: 'follow', pointer };
}

export async function readPointer(redis: RedisClient, key: string): Promise<Pointer | null> {
  return parsePointer(await redis.hgetall(key));
}

/**
 * Creates a pointer at checkpoint 0 on a new generation, unless another
 * process just did. `head` is the store's head now: the generation is being
 * rebuilt until it has absorbed that much (Pointer.rebuildingTo).
 */
export async function createPointer(redis: RedisClient, key: string, version: number, head: number): Promise<void> {
  await runScript(redis, CREATE_POINTER, [key], [version, newGeneration(), digestField(0, EMPTY_DIGEST), head]);
}
