import { Redis } from 'ioredis';
import { REDIS_URL } from './environment';

/**
 * Deletes every key of the prefix in ONE command, as a Redis that lost its
 * data would: the keys are collected first, then unlinked together, so a
 * service running meanwhile never sees a half-deleted model (deleteRedisKeys
 * unlinks page by page, which a running service could interleave with).
 * Returns how many keys were deleted.
 */
export async function deleteRedisKeysAtOnce(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...page);
    } while (cursor !== '0');
    return keys.length === 0 ? 0 : await redis.unlink(...new Set(keys));
  } finally {
    redis.disconnect();
  }
}

/** How many keys exist under the prefix. */
export async function countRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = new Set<string>();
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of page) keys.add(key);
    } while (cursor !== '0');
    return keys.size;
  } finally {
    redis.disconnect();
  }
}

/** Every key under the prefix and every value it holds, whatever its type, as bytes: what a scan of Redis for a value reads. */
export async function redisContents(prefix: string): Promise<Buffer> {
  const redis = new Redis(REDIS_URL);
  try {
    const parts: Buffer[] = [];
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of page) {
        parts.push(Buffer.from(key));
        const type = await redis.type(key);
        if (type === 'string') parts.push((await redis.getBuffer(key)) ?? Buffer.alloc(0));
        if (type === 'hash') parts.push(...Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [Buffer.from(field), value]));
        if (type === 'list') parts.push(...(await redis.lrangeBuffer(key, 0, -1)));
        if (type === 'set') parts.push(...(await redis.smembersBuffer(key)));
        if (type === 'zset') parts.push(...(await redis.zrangeBuffer(key, '0', '-1')));
        if (type === 'stream') parts.push(Buffer.from(JSON.stringify(await redis.xrange(key, '-', '+'))));
      }
    } while (cursor !== '0');
    return Buffer.concat(parts);
  } finally {
    redis.disconnect();
  }
}
