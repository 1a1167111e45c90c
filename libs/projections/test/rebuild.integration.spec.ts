import { RebuildProgress } from '../src';
import { EMPTY_DIGEST } from '../src/digest';
import { StreamCount } from './stream-counts.projection';
import { TestEnvironment } from './environment';

const NAME = 'stream-counts';

describe('rebuild against SQLite and Redis', () => {
  let env: TestEnvironment;

  beforeEach(() => {
    env = new TestEnvironment();
  });

  afterEach(async () => {
    await env.dispose();
  });

  it('rebuilds beside a live runner while appends keep coming, switches, and the live runner follows the new generation', async () => {
    const live = env.runner();
    live.start();
    let position = 0;
    for (let i = 0; i < 300; i++) position = await env.append(`s${i % 4}`);
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    const [before] = await live.status();

    let appending = true;
    let appended = 0;
    const appender = (async () => {
      while (appending) {
        position = await env.append(`s${appended % 4}`);
        appended++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    // The operator's CLI: another Redis connection, the store file opened again, never started.
    const operator = env.runner({ store: env.openStore(), batchSize: 50 });
    const progress: RebuildProgress[] = [];
    const [result] = await operator.rebuild(undefined, (p) => progress.push(p)).finally(async () => {
      appending = false;
      await appender;
    });

    expect(appended).toBeGreaterThan(0);
    expect(result).toEqual({ name: NAME, events: expect.any(Number), digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(result.events).toBeGreaterThanOrEqual(300);
    expect(progress.length).toBeGreaterThanOrEqual(6);
    expect(progress[progress.length - 1]).toMatchObject({ name: NAME, events: result.events });

    expect(await live.waitForPosition(position, 5000)).toBe(true);
    const [after] = await live.status();
    expect(after.generation).not.toBe(before.generation);
    expect(after.checkpoint).toBe(position);
    expect(await env.keyCount(env.layout().generationPattern(NAME, before.generation!))).toBe(0);
    // No generation lists its keys any more (decision 0085).
    expect(await env.keyCount(`${env.layout().pointer(NAME)}:keys:*`)).toBe(0);
    expect(await env.keyCount(env.layout().building(NAME))).toBe(0);

    const total = 300 + appended;
    const counts = await Promise.all([0, 1, 2, 3].map((i) => env.readModel.getDocument<StreamCount>(NAME, `t1:s${i}`)));
    expect(counts.reduce((sum, doc) => sum + (doc?.count ?? 0), 0)).toBe(total);
    expect(await live.digest(NAME)).toBe(await env.referenceDigest());
    // The digest the batches kept, live runner and rebuild interleaved, is the digest of what Redis holds.
    expect(await live.digest(NAME)).toBe(await live.contentDigest(NAME));

    position = await env.append('s0');
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    expect((await live.status())[0].generation).toBe(after.generation);
    const s0 = counts[0]?.count ?? 0;
    expect((await env.readModel.getDocument<StreamCount>(NAME, 't1:s0'))?.count).toBe(s0 + 1);
  });

  it('gives the same digest rebuilt from zero as built incrementally', async () => {
    const live = env.runner();
    live.start();
    let position = 0;
    for (let i = 0; i < 50; i++) position = await env.append(`s${i % 7}`, i % 5 === 4 ? 'Closed' : 'Noted');
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    const incremental = await live.digest(NAME);
    await live.stop();

    const [result] = await env.runner().rebuild([NAME]);
    expect(result.digest).toBe(incremental);
    expect(result.events).toBe(50);
  });

  it('rebuilds in partitions, each filled by its own connections, into the same model a rebuild in one piece makes', async () => {
    const live = env.runner();
    live.start();
    let position = 0;
    for (let i = 0; i < 400; i++) position = await env.append(`s${i % 23}`, ['Noted', 'Opened', 'Noted', 'Closed', 'Ignored'][i % 5]);
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    const [before] = await live.status();

    // Each partition as another thread fills it: its own store connection and Redis connection.
    const partitionRunner = () => env.runner({ store: env.openStore(), batchSize: 30 });
    const filled: Array<{ index: number; until: number }> = [];
    const partitions = {
      count: 2,
      fill: async (index: number, until: number) => {
        filled.push({ index, until });
        return partitionRunner().fillPartition([NAME], { index, count: 2 }, until);
      },
    };
    const appended = env.append('s-after-head');
    const [result] = await env.runner({ store: env.openStore(), batchSize: 30 }).rebuild([NAME], undefined, partitions);
    await appended;

    expect(filled.map((f) => f.index).sort()).toEqual([0, 1]);
    expect(new Set(filled.map((f) => f.until)).size).toBe(1);
    expect(result.events).toBeGreaterThanOrEqual(400);
    expect(result.digest).toBe(await env.referenceDigest());
    const [after] = await live.status();
    expect(after.generation).not.toBe(before.generation);
    expect(await live.digest(NAME)).toBe(await live.contentDigest(NAME));
    // The partitions' pointers are merged away, and the building pointer switched.
    expect(await env.keyCount(`${env.layout().building(NAME)}*`)).toBe(0);
  });

  it('resumes a fill in partitions that stopped, and refuses to merge partitions that did not all get there', async () => {
    let position = 0;
    for (let i = 0; i < 200; i++) position = await env.append(`s${i % 11}`, i % 7 === 6 ? 'Closed' : 'Noted');
    const operator = env.runner({ batchSize: 25 });
    // The first attempt: partition 1 fails (once partition 0 is done), so nothing is merged or switched.
    const failing = {
      count: 2,
      fill: async (index: number, until: number) => {
        if (index === 1) throw new Error('partition 1 stopped');
        return env.runner({ batchSize: 25 }).fillPartition([NAME], { index, count: 2 }, until);
      },
    };
    await expect(operator.rebuild([NAME], undefined, failing)).rejects.toThrow('partition 1 stopped');
    expect((await operator.status())[0].generation).toBeNull();
    const checkpointOf = (index: number) => env.redis.hget(env.layout().buildingPartition(NAME, index, 2), 'checkpoint');
    expect(Number(await checkpointOf(0))).toBe(position);
    expect(Number(await checkpointOf(1))).toBe(0);

    // The second: partition 1 says it is done without having filled anything; the merge refuses it.
    const claiming = { count: 2, fill: async (index: number, until: number) => (index === 1 ? 0 : env.runner().fillPartition([NAME], { index, count: 2 }, until)) };
    await expect(operator.rebuild([NAME], undefined, claiming)).rejects.toThrow(`not every partition of its rebuild reached position ${position}`);
    expect((await operator.status())[0].generation).toBeNull();

    // The third: partition 0 has nothing left to read; both merge, the model switches.
    const reads: number[] = [];
    const resuming = {
      count: 2,
      fill: async (index: number, until: number) => {
        const events = await env.runner({ batchSize: 25 }).fillPartition([NAME], { index, count: 2 }, until);
        reads[index] = events;
        return events;
      },
    };
    const [result] = await operator.rebuild([NAME], undefined, resuming);
    expect(reads).toEqual([0, 200]);
    expect(result.digest).toBe(await env.referenceDigest());
    expect((await operator.status())[0]).toMatchObject({ checkpoint: position, lag: 0 });
  });

  it('keeps a digest equal to the content through creations, changes, index moves and deletions', async () => {
    const live = env.runner({ batchSize: 7 });
    live.start();
    let position = 0;
    for (let i = 0; i < 120; i++) position = await env.append(`s${i % 9}`, ['Noted', 'Opened', 'Closed', 'Ignored'][i % 4]);
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    expect(await live.digest(NAME)).toBe(await live.contentDigest(NAME));
    expect(await live.digest(NAME)).not.toBe(EMPTY_DIGEST);
  });

  it('reads the digest of a generation an earlier release wrote, and deletes it by SCAN once rebuilt', async () => {
    const live = env.runner();
    live.start();
    let position = 0;
    for (let i = 0; i < 40; i++) position = await env.append(`s${i % 5}`);
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    await live.stop();
    // What a release before the kept digest leaves: a pointer without one.
    const [{ generation }] = await live.status();
    await env.redis.hdel(env.layout().pointer(NAME), 'digest');
    const content = await live.contentDigest(NAME);
    expect(await live.digest(NAME)).toBe(content);

    const [result] = await env.runner().rebuild([NAME]);
    expect(result.digest).toBe(content);
    expect(await env.keyCount(env.layout().generationPattern(NAME, generation!))).toBe(0);
    expect(await live.contentDigest(NAME)).toBe(content);
  });

  it('deletes the key set a release before decision 0085 kept, with its generation', async () => {
    const live = env.runner();
    live.start();
    const position = await env.append('s1');
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    await live.stop();
    const [{ generation }] = await live.status();
    const keySet = env.layout().legacyKeySet(NAME, generation!);
    await env.redis.sadd(keySet, ':doc:t1:s1');

    await env.runner().rebuild([NAME]);
    expect(await env.keyCount(env.layout().generationPattern(NAME, generation!))).toBe(0);
    expect(await env.redis.exists(keySet)).toBe(0);
  });

  it('refuses an unknown projection name', async () => {
    await expect(env.runner().rebuild(['nope'])).rejects.toThrow('unknown projection "nope"');
  });
});
