import { canonicalJson } from '@ledger/event-store';
import { ProjectionRunner, ReadModel } from '../src';
import { TestEnvironment } from './environment';
import { StreamCount, streamCounts } from './stream-counts.projection';

const NAME = 'stream-counts';
const dictionary = canonicalJson({ count: 1, lastType: 'Opened', stream: 'stream', tenantId: 't1' });

describe('a projection that stores its documents deflated (decision 0084), against Redis', () => {
  let env: TestEnvironment;
  const projection = streamCounts(1, { dictionary });

  beforeEach(() => {
    env = new TestEnvironment();
  });

  afterEach(async () => {
    await env.dispose();
  });

  /** The document as Redis holds it in the live generation. */
  async function storedBytes(runner: ProjectionRunner, id: string): Promise<Buffer | null> {
    const [{ generation }] = await runner.status();
    return env.redis.getBuffer(env.layout().doc(NAME, generation!, id));
  }

  it('writes deflated documents live and on a rebuild, and reads them back by id, index and page', async () => {
    const runner = env.runner({ projections: [projection] });
    runner.start();
    await env.append('s1', 'Opened');
    await env.append('s2', 'Opened');
    const last = await env.append('s1', 'Renamed');
    expect(await runner.waitForPosition(last, 5000)).toBe(true);

    const s1: StreamCount = { tenantId: 't1', stream: 's1', count: 2, lastType: 'Renamed' };
    const stored = (await storedBytes(runner, 't1:s1'))!;
    // zlib's header for an 8 KB window, then less than the text itself.
    expect(stored[0]).toBe(0x58);
    expect(stored.length).toBeLessThan(Buffer.byteLength(canonicalJson(s1)));

    const readModel = new ReadModel({ redis: env.redis, prefix: env.prefix, projections: [projection] });
    expect(await readModel.getDocument(NAME, 't1:s1')).toEqual(s1);
    expect(await readModel.findByIndex(NAME, 'lastType', 't1:Opened')).toEqual([{ tenantId: 't1', stream: 's2', count: 1, lastType: 'Opened' }]);
    const page = await readModel.pageByIndex(NAME, 'lastType', 't1:Renamed', { limit: 10 });
    expect(page).toEqual({ entries: [{ sortKey: null, document: s1 }], nextCursor: null });

    // The digests hash the documents' content, not their stored form: the same as an uncompressed model of the same events.
    const digest = await runner.digest(NAME);
    expect(await runner.contentDigest(NAME)).toBe(digest);
    expect(await env.referenceDigest(streamCounts(1))).toBe(digest);

    // A rebuild loads the documents it writes again (the batches fold over them) through the same codec.
    await env.append('s1', 'Opened');
    const [rebuilt] = await runner.rebuild();
    expect(rebuilt.digest).toBe(await env.referenceDigest(streamCounts(1)));
    expect(await readModel.getDocument(NAME, 't1:s1')).toEqual({ ...s1, count: 3, lastType: 'Opened' });
    expect((await storedBytes(runner, 't1:s1'))![0]).toBe(0x58);
  });

  it('fails a read of a deflated document by a read model not told the projection compresses', async () => {
    const runner = env.runner({ projections: [projection] });
    runner.start();
    expect(await runner.waitForPosition(await env.append('s1', 'Opened'), 5000)).toBe(true);
    await expect(env.readModel.getDocument(NAME, 't1:s1')).rejects.toThrow(/does not compress/);
  });
});
