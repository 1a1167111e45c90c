import type { RedisClient } from '@ledger/platform';
import { IndexPage, InvalidCursorError, ProjectionRunner, ReadModel } from '../src';
import { indexMember } from '../src/index-member';
import { RedisLayout } from '../src/redis-layout';
import { ranked, Ranked, rankedEvent } from './ranked.projection';
import { newEvent, streamCounts } from './stream-counts.projection';
import { TestEnvironment } from './environment';

const NAME = 'ranked';

/** Every page of the tenant's `rank` index, `limit` at a time, from the first. */
async function allPages(readModel: ReadModel, limit: number): Promise<Array<IndexPage<Ranked>>> {
  const pages: Array<IndexPage<Ranked>> = [];
  let after: string | null = null;
  do {
    const page: IndexPage<Ranked> = await readModel.pageByIndex<Ranked>(NAME, 'rank', 't1', { after, limit });
    pages.push(page);
    after = page.nextCursor;
  } while (after !== null);
  return pages;
}

/** Index order: sort key, then id (`t1:` and the stream). */
const byRankThenId = (a: Ranked, b: Ranked) => (a.rank !== b.rank ? (a.rank < b.rank ? -1 : 1) : a.stream < b.stream ? -1 : 1);
const streams = (documents: Ranked[]) => documents.map((d) => d.stream);
/** A page's documents, in order. */
const documentsOf = <T>(page: IndexPage<T>): T[] => page.entries.map((e) => e.document);

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

  it('pages through 25 documents 10 at a time: every id once, in (sort key, id) order, and no cursor after the last page', async () => {
    const pages = await allPages(env.readModel, 10);
    expect(pages.map((p) => [documentsOf(p).length, p.nextCursor === null])).toEqual([
      [10, false],
      [10, false],
      [5, true],
    ]);
    const listed = pages.flatMap((p) => documentsOf(p));
    expect(new Set(streams(listed)).size).toBe(25);
    // Each entry says the sort key it is listed under: the projection's rank here.
    expect(pages.flatMap((p) => p.entries).every((e) => e.sortKey === e.document.rank)).toBe(true);
    expect(listed).toEqual([...listed].sort(byRankThenId));
    expect(listed.slice(0, 3).map((d) => [d.rank, d.stream])).toEqual([
      ['0000', 's00'],
      ['0000', 's10'],
      ['0000', 's20'],
    ]);
    expect(await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1')).toEqual(listed);
  });

  it('ends on a full page when the documents fill the pages exactly, instead of handing out a cursor to an empty one', async () => {
    const pages = await allPages(env.readModel, 5);
    expect(pages.map((p) => documentsOf(p).length)).toEqual([5, 5, 5, 5, 5]);
    expect(pages[4].nextCursor).toBeNull();
  });

  it('moves a document whose sort key changes, and lists it once', async () => {
    const before = await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1');
    expect(before[0].stream).toBe('s00');
    await settle(await rank('s00', '9999'));

    const listed = (await allPages(env.readModel, 10)).flatMap((p) => documentsOf(p));
    expect(listed).toHaveLength(25);
    expect(listed.filter((d) => d.stream === 's00')).toEqual([{ tenantId: 't1', stream: 's00', rank: '9999' }]);
    expect(listed[24].stream).toBe('s00');
    expect(listed).toEqual([...listed].sort(byRankThenId));
    expect(await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1')).toEqual(listed);
  });

  it('removes a deleted document from the index', async () => {
    await settle((await env.store.append('s07', [newEvent('Closed')], 'any')).position);
    const listed = (await allPages(env.readModel, 10)).flatMap((p) => documentsOf(p));
    expect(listed).toHaveLength(24);
    expect(streams(listed)).not.toContain('s07');
    expect(streams(await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1'))).not.toContain('s07');
  });

  it('continues a page read before a rebuild in the generation the rebuild switched to', async () => {
    const first = await env.readModel.pageByIndex<Ranked>(NAME, 'rank', 't1', { limit: 10 });
    const [before] = await runner.status();
    await env.runner({ projections: [ranked()] }).rebuild();
    expect((await runner.status())[0].generation).not.toBe(before.generation);

    const rest = await env.readModel.pageByIndex<Ranked>(NAME, 'rank', 't1', { after: first.nextCursor, limit: 20 });
    expect(rest.nextCursor).toBeNull();
    expect([...documentsOf(first), ...documentsOf(rest)]).toEqual(await env.readModel.findByIndex<Ranked>(NAME, 'rank', 't1'));
  });

  it('answers an empty last page for a value nothing is listed under', async () => {
    expect(await env.readModel.pageByIndex(NAME, 'rank', 't2', { limit: 10 })).toEqual({ entries: [], nextCursor: null });
  });

  it('refuses (read_model_rebuilding) to read a projection without a model: its emptiness says nothing of the ledger', async () => {
    await expect(env.readModel.pageByIndex('none', 'rank', 't1', { limit: 10 })).rejects.toMatchObject({ kind: 'unavailable', code: 'read_model_rebuilding', retryAfterSeconds: 5 });
    await expect(env.readModel.findByIndex('none', 'rank', 't1')).rejects.toMatchObject({ code: 'read_model_rebuilding' });
    await expect(env.readModel.getDocument('none', 't1:0')).rejects.toMatchObject({ code: 'read_model_rebuilding' });
  });

  it('refuses a cursor it did not hand out with InvalidCursorError', async () => {
    for (const after of ['', 'not a cursor', Buffer.from('t1:s01').toString('base64url')]) {
      await expect(env.readModel.pageByIndex(NAME, 'rank', 't1', { after, limit: 10 })).rejects.toThrow(InvalidCursorError);
    }
    await expect(env.readModel.pageByIndex(NAME, 'rank', 't1', { limit: 0 })).rejects.toThrow(RangeError);
  });
});

/** Generations written by hand, to read them in states the runner only passes through. */
describe('index pages of generations written directly', () => {
  let env: TestEnvironment;
  let layout: RedisLayout;

  beforeEach(() => {
    env = new TestEnvironment();
    layout = env.layout();
  });

  afterEach(async () => {
    await env.dispose();
  });

  /** Documents t1:0 .. t1:{count-1} ranked in that order, each saying which generation holds it; all but `missing`. */
  async function writeGeneration(generation: string, count: number, missing: number[] = []): Promise<void> {
    const writes = env.redis.pipeline();
    for (let i = 0; i < count; i++) {
      const id = `t1:${i}`;
      if (!missing.includes(i)) writes.set(layout.doc(NAME, generation, id), JSON.stringify({ generation, i }));
      writes.zadd(layout.index(NAME, generation, 'rank', 't1'), 0, indexMember(String(i).padStart(4, '0'), id));
    }
    await writes.exec();
  }

  const point = (redis: RedisClient, generation: string) => redis.hset(layout.pointer(NAME), { version: 1, generation, checkpoint: 0 });
  const page = (after: string | null, limit: number) => env.readModel.pageByIndex<{ generation: string; i: number }>(NAME, 'rank', 't1', { after, limit });

  it('reads each page from the one generation the pointer names when the page is read, while another process switches', async () => {
    await writeGeneration('g1', 6);
    await writeGeneration('g2', 6);
    await point(env.redis, 'g1');

    const first = await page(null, 3);
    expect(documentsOf(first)).toEqual([0, 1, 2].map((i) => ({ generation: 'g1', i })));

    // A rebuild's switch, then the deletion of the generation it retired, key by key, from another connection;
    // pages are read one after another meanwhile, so their steps and the switch's interleave.
    const operator = env.connect();
    let switched = false;
    const switching = (async () => {
      await point(operator, 'g2');
      for (let i = 0; i < 6; i++) await operator.unlink(layout.doc(NAME, 'g1', `t1:${i}`));
      await operator.unlink(layout.index(NAME, 'g1', 'rank', 't1'));
      switched = true;
    })();
    const pages: Array<IndexPage<{ generation: string; i: number }>> = [];
    while (!switched) pages.push(await page(null, 6));
    await switching;
    for (const listed of [...pages, await page(null, 6)]) {
      const { nextCursor } = listed;
      const documents = documentsOf(listed);
      expect(documents.map((d) => d.i)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(new Set(documents.map((d) => d.generation)).size).toBe(1);
      expect(nextCursor).toBeNull();
    }

    const rest = await page(first.nextCursor, 10);
    expect([documentsOf(rest), rest.nextCursor]).toEqual([[3, 4, 5].map((i) => ({ generation: 'g2', i })), null]);
  });

  it('refuses every read of a generation rebuilt after a loss until its checkpoint reaches the head it was started at', async () => {
    await writeGeneration('g1', 3);
    await env.redis.hset(layout.pointer(NAME), { version: 1, generation: 'g1', checkpoint: 41, rebuildingTo: 42 });
    await expect(page(null, 3)).rejects.toMatchObject({ code: 'read_model_rebuilding' });
    await expect(env.readModel.findByIndex(NAME, 'rank', 't1')).rejects.toMatchObject({ code: 'read_model_rebuilding' });
    await expect(env.readModel.getDocument(NAME, 't1:0')).rejects.toMatchObject({ code: 'read_model_rebuilding' });

    await env.redis.hset(layout.pointer(NAME), { checkpoint: 42 });
    expect(documentsOf(await page(null, 3)).map((d) => d.i)).toEqual([0, 1, 2]);
    expect(await env.readModel.getDocument(NAME, 't1:0')).toEqual({ generation: 'g1', i: 0 });
  });

  it('skips entries whose document is missing and fills the page from the entries after them', async () => {
    await writeGeneration('g1', 10, [2, 3]);
    await point(env.redis, 'g1');
    const first = await page(null, 4);
    expect(documentsOf(first).map((d) => d.i)).toEqual([0, 1, 4, 5]);
    const second = await page(first.nextCursor, 4);
    expect([documentsOf(second), second.nextCursor]).toEqual([[6, 7, 8, 9].map((i) => ({ generation: 'g1', i })), null]);
  });

  it('answers an empty last page when only entries without a document follow a full page', async () => {
    await writeGeneration('g1', 6, [5]);
    await point(env.redis, 'g1');
    const first = await page(null, 5);
    expect(documentsOf(first)).toHaveLength(5);
    expect(await page(first.nextCursor, 5)).toEqual({ entries: [], nextCursor: null });
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

});

describe('a model written before indexes were sorted sets', () => {
  let env: TestEnvironment;
  let layout: RedisLayout;
  const name = streamCounts().name;
  const ids = ['t1:s2', 't1:s10', 't1:s1'];

  beforeEach(() => {
    env = new TestEnvironment();
    layout = env.layout();
  });

  afterEach(async () => {
    await env.dispose();
  });

  /** What the previous release left: documents, a set of ids per index value, and the pointer, all of version 1. */
  async function writeSetGeneration(checkpoint: number): Promise<void> {
    for (const id of ids) {
      const stream = id.slice('t1:'.length);
      await env.redis.set(layout.doc(name, 'g0', id), JSON.stringify({ tenantId: 't1', stream, count: 1, lastType: 'Opened' }));
      await env.redis.sadd(layout.index(name, 'g0', 'lastType', 't1:Opened'), id);
    }
    await env.redis.hset(layout.pointer(name), { version: 1, generation: 'g0', checkpoint });
  }

  it('is read by findByIndex in id order while it is still live (this version rebuilding it)', async () => {
    await writeSetGeneration(0);
    const found = await env.readModel.findByIndex<{ stream: string }>(name, 'lastType', 't1:Opened');
    expect(found.map((d) => d.stream)).toEqual(['s1', 's10', 's2']);
  });

  it('is rebuilt into sorted sets once the projection version is bumped, and its sets are deleted', async () => {
    let position = 0;
    for (const id of ids) position = await env.append(id.slice('t1:'.length), 'Opened');
    await writeSetGeneration(position);

    const runner = env.runner({ projections: [streamCounts(2)] });
    runner.start();
    expect(await runner.ready(10_000)).toBe(true);
    const [status] = await runner.status();
    expect(status).toMatchObject({ version: 2, checkpoint: position });
    expect(await env.keyCount(env.layout().generationPattern(name, 'g0'))).toBe(0);
    expect(await env.redis.type(layout.index(name, status.generation!, 'lastType', 't1:Opened'))).toBe('zset');
    const page = await env.readModel.pageByIndex<{ stream: string }>(name, 'lastType', 't1:Opened', { limit: 10 });
    expect(documentsOf(page).map((d) => d.stream)).toEqual(['s1', 's10', 's2']);
    expect(await runner.digest(name)).toBe(await env.referenceDigest(streamCounts(2)));
  });
});
