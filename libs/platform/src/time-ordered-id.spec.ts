import { TIME_ORDERED_ID, instantOfTimeOrderedId } from './testing';
import { timeOrderedId } from './time-ordered-id';

describe('timeOrderedId', () => {
  it('is a version 7 UUID of RFC 9562 holding the instant it was made at', () => {
    for (const at of [0, 1, 1_764_403_200_000, 2 ** 48 - 1]) {
      const id = timeOrderedId(at);
      expect(id).toMatch(TIME_ORDERED_ID);
      expect(instantOfTimeOrderedId(id)).toBe(at);
    }
  });

  it("matches RFC 9562's example layout: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F for 2022-02-22T19:22:22Z", () => {
    const exampleRandom = Buffer.from('0cc318c4dc0c0c07398f', 'hex');
    expect(timeOrderedId(Date.parse('2022-02-22T19:22:22.000Z'), (bytes) => bytes.set(exampleRandom))).toBe('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
  });

  it('sorts ids made in a later millisecond after those made earlier, as text', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => timeOrderedId(1_764_403_200_000 + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  it('makes distinct ids within one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedId(1_764_403_200_000)));
    expect(ids.size).toBe(10_000);
  });

  it('refuses an instant it cannot hold', () => {
    for (const at of [-1, 2 ** 48, 1.5, Number.NaN]) expect(() => timeOrderedId(at)).toThrow(RangeError);
  });
});
