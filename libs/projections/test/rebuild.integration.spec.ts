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
    expect(await env.keyCount(`${env.prefix}:rm:${NAME}:${before.generation}:*`)).toBe(0);
    // No generation lists its keys any more (decision 0085).
    expect(await env.keyCount(`${env.prefix}:projection:${NAME}:keys:*`)).toBe(0);
    expect(await env.keyCount(`${env.prefix}:projection:${NAME}:building`)).toBe(0);

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
    await env.redis.hdel(`${env.prefix}:projection:${NAME}`, 'digest');
    const content = await live.contentDigest(NAME);
    expect(await live.digest(NAME)).toBe(content);

    const [result] = await env.runner().rebuild([NAME]);
    expect(result.digest).toBe(content);
    expect(await env.keyCount(`${env.prefix}:rm:${NAME}:${generation}:*`)).toBe(0);
    expect(await live.contentDigest(NAME)).toBe(content);
  });

  it('deletes the key set a release before decision 0085 kept, with its generation', async () => {
    const live = env.runner();
    live.start();
    const position = await env.append('s1');
    expect(await live.waitForPosition(position, 5000)).toBe(true);
    await live.stop();
    const [{ generation }] = await live.status();
    const keySet = `${env.prefix}:projection:${NAME}:keys:${generation}`;
    await env.redis.sadd(keySet, ':doc:t1:s1');

    await env.runner().rebuild([NAME]);
    expect(await env.keyCount(`${env.prefix}:rm:${NAME}:${generation}:*`)).toBe(0);
    expect(await env.redis.exists(keySet)).toBe(0);
  });

  it('refuses an unknown projection name', async () => {
    await expect(env.runner().rebuild(['nope'])).rejects.toThrow('unknown projection "nope"');
  });
});
