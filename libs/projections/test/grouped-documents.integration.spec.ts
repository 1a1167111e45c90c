import { ReadModel } from '../src';
import { TestEnvironment } from './environment';
import { groupedStreamCounts, newEvent, streamCounts } from './stream-counts.projection';

const NAME = 'grouped-stream-counts';

describe('a projection that keeps its documents grouped, a hash per group (decision 0088), against Redis', () => {
  let env: TestEnvironment;
  const projection = groupedStreamCounts();

  beforeEach(() => {
    env = new TestEnvironment();
  });

  afterEach(async () => {
    await env.dispose();
  });

  const appendFor = async (tenantId: string, stream: string, type: string) => (await env.store.append(stream, [newEvent(type, tenantId)], 'any')).position;

  it('writes a field per document, reads a group back, deletes a field, and keeps the digests of the documents', async () => {
    const runner = env.runner({ projections: [projection] });
    runner.start();
    await appendFor('t1', 's1', 'Opened');
    await appendFor('t1', 's2', 'Opened');
    await appendFor('t2', 's1', 'Opened');
    await appendFor('t1', 's1', 'Renamed');
    expect(await runner.waitForPosition(await appendFor('t1', 's3', 'Opened'), 5000)).toBe(true);

    const readModel = new ReadModel({ redis: env.redis, prefix: env.prefix, projections: [projection] });
    expect(await readModel.readGroup(NAME, 't1')).toEqual([
      { field: 's1', document: { tenantId: 't1', stream: 's1', count: 2, lastType: 'Renamed' } },
      { field: 's2', document: { tenantId: 't1', stream: 's2', count: 1, lastType: 'Opened' } },
      { field: 's3', document: { tenantId: 't1', stream: 's3', count: 1, lastType: 'Opened' } },
    ]);
    expect(await readModel.readGroup(NAME, 't2')).toEqual([{ field: 's1', document: { tenantId: 't2', stream: 's1', count: 1, lastType: 'Opened' } }]);
    expect(await readModel.readGroup(NAME, 't3')).toEqual([]);

    // One hash per group, no key per document and no index.
    const [{ generation }] = await runner.status();
    const layout = env.layout();
    expect(await env.keyCount(`${layout.generationBase(NAME, generation!)}:*`)).toBe(2);
    expect(await env.redis.hlen(layout.group(NAME, generation!, 't1'))).toBe(3);

    // A deleted document is a deleted field; the group's last one takes its hash with it.
    await appendFor('t1', 's2', 'Closed');
    expect(await runner.waitForPosition(await appendFor('t2', 's1', 'Closed'), 5000)).toBe(true);
    expect((await readModel.readGroup(NAME, 't1')).map(({ field }) => field)).toEqual(['s1', 's3']);
    expect(await env.redis.exists(layout.group(NAME, generation!, 't2'))).toBe(0);

    const digest = await runner.digest(NAME);
    expect(await runner.contentDigest(NAME)).toBe(digest);
    expect(await env.referenceDigest(projection)).toBe(digest);
  });

  it('rebuilds in batches that read the next batch\'s fields as the batch before left them, to the same digest', async () => {
    for (let i = 0; i < 30; i += 1) await appendFor(`t${i % 3}`, `s${i % 7}`, i % 11 === 10 ? 'Closed' : 'Noted');
    const reference = await env.referenceDigest(projection);
    const runner = env.runner({ projections: [projection], batchSize: 4 });
    runner.start();
    expect(await runner.ready(10_000)).toBe(true);
    const [rebuilt] = await runner.rebuild();
    expect(rebuilt.digest).toBe(reference);
    expect(await runner.contentDigest(NAME)).toBe(reference);
    // Every stream was counted once per event in its tenant, closed or not, across batches of 4.
    const readModel = new ReadModel({ redis: env.redis, prefix: env.prefix, projections: [projection] });
    const counts = (await Promise.all(['t0', 't1', 't2'].map((tenant) => readModel.readGroup<{ count: number }>(NAME, tenant)))).flat();
    expect(counts.every(({ document }) => document.count >= 1)).toBe(true);
  });

  it('keeps a group of short fields and documents as one listpack, the compact encoding it is for', async () => {
    const runner = env.runner({ projections: [projection] });
    runner.start();
    // Each document here is about 60 bytes of JSON: under the 64 up to which Redis keeps a hash's entries in one listpack.
    const fields = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`);
    for (const field of fields) await appendFor('t1', field, 'Noted');
    expect(await runner.waitForPosition(await appendFor('t1', 'last', 'Noted'), 5000)).toBe(true);
    const [{ generation }] = await runner.status();
    const group = env.layout().group(NAME, generation!, 't1');
    expect(await env.redis.object('ENCODING', group)).toBe('listpack');
    const readModel = new ReadModel({ redis: env.redis, prefix: env.prefix, projections: [projection] });
    expect((await readModel.readGroup(NAME, 't1')).map(({ field }) => field)).toEqual([...fields, 'last'].sort());
  });

  it('refuses a grouped projection with indexes or compression when the runner is made', () => {
    expect(() => env.runner({ projections: [{ ...projection, indexes: streamCounts().indexes }] })).toThrow(/no indexes and does not compress/);
    expect(() => env.runner({ projections: [{ ...projection, compression: { dictionary: '{}' } }] })).toThrow(/no indexes and does not compress/);
  });
});
