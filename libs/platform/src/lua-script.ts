import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script for Redis, with the hash Redis caches it under. Redis runs a script without interleaving other commands. */
export interface LuaScript {
  lua: string;
  sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** Runs a script by its hash, sending the source only when Redis does not have it cached (after a restart). */
export async function runScript(
  redis: Redis,
  { lua, sha }: LuaScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number | Buffer>,
): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua, keys.length, ...keys, ...args);
  }
}
