import { randomUUID } from 'node:crypto';
import { createRedis } from './redis';
import { luaScript, runScript } from './lua-script';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const GET = luaScript(`return redis.call('GET', KEYS[1])`);
// Bytes that are not UTF-8: read as text, they would come back changed.
const BYTES = Buffer.from([0x58, 0x85, 0xff, 0x00, 0xc3]);

describe('runScript, against Redis', () => {
  for (const autoPipelining of [false, true]) {
    describe(autoPipelining ? 'auto-pipelined' : 'one command at a time', () => {
      const redis = createRedis(REDIS_URL, 'lua-script-test', { enableAutoPipelining: autoPipelining });
      const key = `test:${randomUUID()}`;

      beforeAll(async () => {
        await redis.set(key, BYTES);
      });

      afterAll(async () => {
        await redis.del(key);
        await redis.quit();
      });

      it('answers the bytes Redis holds with replies as buffers, and text by default', async () => {
        expect(await runScript(redis, GET, [key], [], { replies: 'buffers' })).toEqual(BYTES);
        expect(await runScript(redis, GET, [key], [])).toBe(BYTES.toString('utf8'));
      });

      it('sends the source when Redis has not cached the script, in either reply form', async () => {
        const uncached = luaScript(`return redis.call('GET', KEYS[1]) -- ${randomUUID()}`);
        expect(await runScript(redis, uncached, [key], [], { replies: 'buffers' })).toEqual(BYTES);
        const another = luaScript(`return redis.call('GET', KEYS[1]) -- ${randomUUID()}`);
        expect(await runScript(redis, another, [key], [])).toBe(BYTES.toString('utf8'));
      });
    });
  }
});
