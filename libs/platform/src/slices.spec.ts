import { randomBytes } from 'node:crypto';
import { sha256Hex, sha256HexInSlices } from './sha256';
import { SLICE_BYTES, slicesOf } from './slices';
import { eventLoopTurnsDuring } from './testing';

describe('work in slices', () => {
  it('hashes to what one call hashes, at and around slice boundaries', async () => {
    for (const length of [0, 1, SLICE_BYTES - 1, SLICE_BYTES, SLICE_BYTES + 1, 3 * SLICE_BYTES + 7]) {
      const bytes = randomBytes(length);
      expect(await sha256HexInSlices(bytes)).toBe(sha256Hex(bytes));
    }
  });

  it('hashes without holding the event loop from start to end', async () => {
    expect(await eventLoopTurnsDuring(() => sha256HexInSlices(Buffer.alloc(4 * SLICE_BYTES)))).toBeGreaterThanOrEqual(3);
  });

  it('gives the event loop a turn between two slices, so other requests run meanwhile', async () => {
    const order: string[] = [];
    let slice = 0;
    for await (const piece of slicesOf(Buffer.alloc(3 * SLICE_BYTES))) {
      expect(piece.length).toBe(SLICE_BYTES);
      order.push(`slice ${slice++}`);
      // What another request would do: it runs before the next slice, not after the last.
      setImmediate(() => order.push(`other after slice ${slice - 1}`));
    }
    expect(order).toEqual(['slice 0', 'other after slice 0', 'slice 1', 'other after slice 1', 'slice 2']);
  });
});
