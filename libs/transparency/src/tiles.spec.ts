import fc from 'fast-check';
import { TILE_WIDTH, TilePathError, parseTilePath, tilePath, tileSpan, tileWidthAt, tilesForSize } from './tiles';

describe('C2SP tlog-tiles hash tiles', () => {
  it("write the specification's example, index 1234067 as x001/x234/067, with .p/<W> only when partial", () => {
    expect(tilePath({ level: 0, index: 1234067, width: 8 })).toBe('tile/0/x001/x234/067.p/8');
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 2, index: 0, width: 1 })).toBe('tile/2/000.p/1');
    expect(tilePath({ level: 63, index: 1000, width: 255 })).toBe('tile/63/x001/000.p/255');
    expect(tilePath({ level: 1, index: 999, width: 256 })).toBe('tile/1/999');
    expect(tilePath({ level: 1, index: 1_000_000, width: 256 })).toBe('tile/1/x001/x000/000');
  });

  it('read back what they write, for any tile', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 63 }), fc.maxSafeNat(), fc.integer({ min: 1, max: 256 }), (level, index, width) => {
        const tile = { level, index, width };
        expect(parseTilePath(tilePath(tile).slice('tile/'.length))).toEqual(tile);
      }),
    );
  });

  it('refuse every path but the one form: leading zeroes, widths 0 and 256 up, levels past 63, entry bundles', () => {
    const refused = [
      '',
      '0',
      '0/67',
      '0/0067',
      '0/x000/067',
      '0/x001/x234/67',
      '0/001/234',
      '00/000',
      '01/000',
      '64/000',
      '-1/000',
      '0/000.p/0',
      '0/000.p/08',
      '0/000.p/256',
      '0/000.p/1000',
      '0/000.p/',
      '0/000.p',
      '0/000/',
      '/0/000',
      'entries/000',
      'data/000',
      '0/x1/000',
      '0/X001/000',
      '0/x001x/000',
      '+0/000',
      ' 0/000',
      '0/000 ',
      `0/${'x999/'.repeat(6)}999`,
    ];
    for (const path of refused) expect(() => parseTilePath(path)).toThrow(TilePathError);
  });

  it('refuse to write a tile that is not one', () => {
    for (const tile of [
      { level: -1, index: 0, width: 1 },
      { level: 64, index: 0, width: 1 },
      { level: 0, index: -1, width: 1 },
      { level: 0, index: 1.5, width: 1 },
      { level: 0, index: 2 ** 53, width: 1 },
      { level: 0, index: 0, width: 0 },
      { level: 0, index: 0, width: 257 },
    ]) {
      expect(() => tilePath(tile)).toThrow(RangeError);
    }
  });

  it('hold tree level 8L, the subtrees from index * 256 on, as many as the width', () => {
    expect(tileSpan({ level: 0, index: 0, width: 256 })).toEqual({ level: 0, start: 0, end: 256 });
    expect(tileSpan({ level: 1, index: 3, width: 17 })).toEqual({ level: 8, start: 768, end: 785 });
    expect(tileSpan({ level: 2, index: 0, width: 1 })).toEqual({ level: 16, start: 0, end: 1 });
  });

  it("of a tree of 70,000 and of 256 are the specification's examples", () => {
    expect(tilesForSize(70_000)).toEqual([
      { level: 0, fullTiles: 273, partialWidth: 112 },
      { level: 1, fullTiles: 1, partialWidth: 17 },
      { level: 2, fullTiles: 0, partialWidth: 1 },
    ]);
    expect(tilesForSize(256)).toEqual([
      { level: 0, fullTiles: 1, partialWidth: 0 },
      { level: 1, fullTiles: 0, partialWidth: 1 },
    ]);
    expect(tilesForSize(0)).toEqual([]);
    expect(tilesForSize(2 ** 53 - 1)).toHaveLength(7);
  });

  it('exist for a tree full once it covers them, partial only at the width the tree has there', () => {
    expect(tileWidthAt(0, 272, 70_000)).toBe(TILE_WIDTH);
    expect(tileWidthAt(0, 273, 70_000)).toBe(112);
    expect(tileWidthAt(0, 274, 70_000)).toBe(0);
    expect(tileWidthAt(1, 0, 70_000)).toBe(TILE_WIDTH);
    expect(tileWidthAt(1, 1, 70_000)).toBe(17);
    expect(tileWidthAt(2, 0, 70_000)).toBe(1);
    expect(tileWidthAt(3, 0, 70_000)).toBe(0);
    // The level's last tile is absent, not of width 0, when the tree ends at its start.
    expect(tileWidthAt(0, 1, 256)).toBe(0);
    expect(tileWidthAt(0, 0, 0)).toBe(0);
    expect(() => tileWidthAt(0, 0, -1)).toThrow(RangeError);
  });

  it('agree, width by width, with the levels of tilesForSize', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (size) => {
        for (const { level, fullTiles, partialWidth } of tilesForSize(size)) {
          if (fullTiles > 0) expect(tileWidthAt(level, fullTiles - 1, size)).toBe(TILE_WIDTH);
          expect(tileWidthAt(level, fullTiles, size)).toBe(partialWidth);
          expect(tileWidthAt(level, fullTiles + 1, size)).toBe(0);
          // Every leaf is under the level's tiles: full ones hold 256^(level+1) leaves each, the partial one what is left.
          expect(fullTiles * TILE_WIDTH ** (level + 1) + partialWidth * TILE_WIDTH ** level).toBeLessThanOrEqual(size);
          expect(size - (fullTiles * TILE_WIDTH + partialWidth) * TILE_WIDTH ** level).toBeLessThan(TILE_WIDTH ** level);
        }
        expect(tileWidthAt(tilesForSize(size).length, 0, size)).toBe(0);
      }),
    );
  });
});
