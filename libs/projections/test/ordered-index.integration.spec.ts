import { ProjectionRunner } from '../src';
import { RedisLayout } from '../src/redis-layout';
import { ranked, Ranked, rankedEvent } from './ranked.projection';
import { newEvent, streamCounts } from './stream-counts.projection';
import { TestEnvironment } from './environment';

const NAME = 'ranked';

/** Index order: sort key, then id (`t1:` and the stream). */
const byRankThenId = (a: Ranked, b: Ranked) => (a.rank !== b.rank ? (a.rank < b.rank ? -1 : 1) : a.stream < b.stream ? -1 : 1);
const streams = (documents: Ranked[]) => documents.map((d) => d.stream);

describe('ordered indexes against SQLite and Redis', () => {
  let env: TestEnvironment;
  let runner: ProjectionRunner;
  let position: number;

  /** Ten ranks for 25 documents: ties, broken by id. */
  const rankOf = (i: number) => String((i * 7) % 10).padStart(4, '0');

  beforeEach(async () => {
    env = new TestEnvironment();
    runner = env.runner({ projections: [ranked()] });
    runner.start();
    for (let i = 0; i < 25; i++) position = await rank(`s${String(i).padStart(2, '0')}`, rankOf(i));
    expect(await runner.waitForPosition(position, 5000)).toBe(true);
  });

  afterEach(async () => {
    await env.dispose();
  });

  async function rank(stream: string, value: string): Promise<number> {
    return (await env.store.append(stream, [rankedEvent(value)], 'any')).position;
  }

  async function settle(at: number): Promise<void> {
    expect(await runner.waitForPosition(at, 5000)).toBe(true);
  }

  it('lists the documents in (sort key, id) order', async () => {
    const listed = await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1');
    expect(new Set(streams(listed)).size).toBe(25);
    expect(listed).toEqual([...listed].sort(byRankThenId));
    expect(listed.slice(0, 3).map((d) => [d.rank, d.stream])).toEqual([
      ['0000', 's00'],
      ['0000', 's10'],
      ['0000', 's20'],
    ]);
  });

  it('moves a document whose sort key changes, and lists it once', async () => {
    await settle(await rank('s00', '9999'));
    const listed = await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1');
    expect(listed).toHaveLength(25);
    expect(listed.filter((d) => d.stream === 's00')).toEqual([{ tenantId: 't1', stream: 's00', rank: '9999' }]);
    expect(listed[24].stream).toBe('s00');
    expect(listed).toEqual([...listed].sort(byRankThenId));
  });

  it('removes a deleted document from the index', async () => {
    await settle((await env.store.append('s07', [newEvent('Closed')], 'any')).position);
    const listed = await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1');
    expect(listed).toHaveLength(24);
    expect(streams(listed)).not.toContain('s07');
  });
});

describe('findByIndex', () => {
  let env: TestEnvironment;

  beforeEach(() => {
    env = new TestEnvironment();
  });

  afterEach(async () => {
    await env.dispose();
  });

  it('lists the documents of an index without sort keys by id, as it always did', async () => {
    const runner = env.runner();
    runner.start();
    let position = 0;
    for (const stream of ['s2', 's10', 's1']) position = await env.append(stream, 'Opened');
    expect(await runner.waitForPosition(position, 5000)).toBe(true);
    const found = await env.readModel.findByIndex<{ stream: string }>('stream-counts', 'lastType', 't1:Opened');
    expect(found.map((d) => d.stream)).toEqual(['s1', 's10', 's2']);
  });

  it('reads a generation written before indexes were sorted sets (a set of ids), in id order, while it is still live', async () => {
    const layout = new RedisLayout(env.prefix);
    const name = streamCounts().name;
    for (const id of ['t1:s2', 't1:s10', 't1:s1']) {
      await env.redis.set(layout.doc(name, 'g0', id), JSON.stringify({ id }));
      await env.redis.sadd(layout.index(name, 'g0', 'lastType', 't1:Opened'), id);
    }
    await env.redis.hset(layout.pointer(name), { version: 1, generation: 'g0', checkpoint: 0 });
    expect(await env.readModel.findByIndex(name, 'lastType', 't1:Opened')).toEqual([{ id: 't1:s1' }, { id: 't1:s10' }, { id: 't1:s2' }]);
  });
});
