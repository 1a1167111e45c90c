import { randomFor } from './random';

describe('randomFor', () => {
  const draw = (seed: number, stream: number) => {
    const random = randomFor(seed, stream);
    return Array.from({ length: 20 }, () => random.next());
  };

  it('gives the same sequence for the same seed and stream, whatever was drawn elsewhere', () => {
    const first = draw(13, 7);
    draw(13, 6);
    expect(draw(13, 7)).toEqual(first);
  });

  it('gives unrelated sequences to neighbouring seeds and streams', () => {
    expect(draw(13, 7)).not.toEqual(draw(13, 8));
    expect(draw(13, 7)).not.toEqual(draw(14, 7));
    expect(draw(0, 0)).not.toEqual(draw(0, 1));
  });

  it('draws integers within the bounds, both included, and never picks a choice of weight 0', () => {
    const random = randomFor(1, 1);
    const ints = new Set(Array.from({ length: 2_000 }, () => random.int(3, 5)));
    expect([...ints].sort()).toEqual([3, 4, 5]);
    const picked = new Set(Array.from({ length: 2_000 }, () => random.weighted([['never', 0], ['a', 1], ['b', 3]] as const)));
    expect([...picked].sort()).toEqual(['a', 'b']);
  });
});
