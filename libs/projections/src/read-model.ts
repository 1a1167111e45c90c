import type { Redis } from 'ioredis';
import { READ_DOCUMENT, READ_INDEX, runScript } from './lua-scripts';
import { docSuffix, indexSuffix, RedisLayout } from './redis-layout';

/**
 * Reads the live generation of a projection's model. Each read resolves the
 * pointer and reads the data in one Lua step, so it never mixes two
 * generations and never reads one a rebuild has just retired, at the cost of
 * no more round trips than a cached generation would need.
 */
export class ReadModel {
  private readonly layout: RedisLayout;

  constructor(private readonly options: { redis: Redis; prefix: string }) {
    this.layout = new RedisLayout(options.prefix);
  }

  /** The document, or null when the model does not hold it. */
  async getDocument<T>(name: string, id: string): Promise<T | null> {
    const json = (await runScript(this.options.redis, READ_DOCUMENT, [this.layout.pointer(name)], [this.layout.modelBase(name), docSuffix(id)])) as
      | string
      | null;
    return json === null ? null : (JSON.parse(json) as T);
  }

  /** Every document listed under `value` in `index`, ordered by sort key, then id. */
  async findByIndex<T>(name: string, index: string, value: string): Promise<T[]> {
    const docs = (await runScript(
      this.options.redis,
      READ_INDEX,
      [this.layout.pointer(name)],
      [this.layout.modelBase(name), indexSuffix(index, value), docSuffix('')],
    )) as string[];
    return docs.map((json) => JSON.parse(json) as T);
  }
}
