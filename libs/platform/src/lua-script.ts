import { createHash } from 'node:crypto';
import type { RedisClient } from './redis';

/** A Lua script for Redis, with the hash Redis caches it under. Redis runs a script without interleaving other commands. */
export interface LuaScript {
  lua: string;
  sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Runs a script by its hash, sending the source only when Redis does not have
 * it cached (after a restart). The reply's strings come back as text, or, with
 * `replies: 'buffers'`, as the bytes Redis holds (for values that are not
 * UTF-8, such as compressed documents).
 */
export async function runScript(
  redis: RedisClient,
  { lua, sha }: LuaScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number | Buffer>,
  options: { replies?: 'text' | 'buffers' } = {},
): Promise<unknown> {
  const scripts = options.replies === 'buffers' ? withBufferScripts(redis) : { bySha: redis.evalsha.bind(redis), bySource: redis.eval.bind(redis) };
  try {
    return await scripts.bySha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return scripts.bySource(lua, keys.length, ...keys, ...args);
  }
}

type ScriptCommand = (script: string, keyCount: number, ...keysAndArgs: Array<string | number | Buffer>) => Promise<unknown>;

/**
 * ioredis answers every command's bulk strings as Buffers in its `…Buffer`
 * variant (its README, "Buffer"); its types declare no such variant for EVAL
 * and EVALSHA, whose reply they leave `unknown`. (`callBuffer` is no way
 * round it: with auto-pipelining it sends the script as the command's name.)
 */
function withBufferScripts(redis: RedisClient): { bySha: ScriptCommand; bySource: ScriptCommand } {
  const client = redis as unknown as { evalshaBuffer: ScriptCommand; evalBuffer: ScriptCommand };
  return { bySha: client.evalshaBuffer.bind(client), bySource: client.evalBuffer.bind(client) };
}
