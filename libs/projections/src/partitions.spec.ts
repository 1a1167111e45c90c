import { inPartition, partitionOf } from './partitions';
import type { DocumentProjection } from './projection';
import { recorded } from '../test/stream-counts.projection';

describe('partitions of a rebuild', () => {
  const ids = Array.from({ length: 3_000 }, (_, i) => `tenant-${i % 7}:document-${i}`);

  it('puts every document in exactly one partition, whatever the count', () => {
    for (const count of [1, 2, 3, 8]) {
      for (const id of ids) {
        const holders = Array.from({ length: count }, (_, index) => index).filter((index) => inPartition(id, { index, count }));
        expect(holders).toHaveLength(1);
      }
    }
  });

  it('shares the documents about evenly', () => {
    const count = 4;
    const sizes = Array.from({ length: count }, (_, index) => ids.filter((id) => inPartition(id, { index, count })).length);
    for (const size of sizes) expect(Math.abs(size - ids.length / count)).toBeLessThan(ids.length / count / 5);
  });

  it("routes an event to its partition's documents only, and keeps the rest of the projection", () => {
    const projection: DocumentProjection<{ n: number }> = {
      name: 'both-sides',
      version: 3,
      route: (event) => [`a:${event.streamId}`, `b:${event.streamId}`],
      evolve: (doc) => ({ n: (doc?.n ?? 0) + 1 }),
    };
    const event = recorded('s-1', 'Noted', 1);
    const routes = [0, 1].map((index) => partitionOf(projection, { index, count: 2 }).route(event));
    expect(routes.flat().sort()).toEqual(['a:s-1', 'b:s-1']);
    for (const [index, ids] of routes.entries()) for (const id of ids) expect(inPartition(id, { index, count: 2 })).toBe(true);
    expect(partitionOf(projection, { index: 0, count: 2 })).toMatchObject({ name: 'both-sides', version: 3, evolve: projection.evolve });
  });
});
