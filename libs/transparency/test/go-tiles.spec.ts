import { execFileSync } from 'node:child_process';
import { Tile, parseTilePath, tilePath, tileWidthAt, tilesForSize } from '../src';
import { buildGoProgram } from './go';

/** Tile paths and the tiles of a tree, from tiles.ts and from Go's sumdb/tlog (go-tiles/), compared. */
describe("Go's sumdb/tlog tiles", () => {
  let goTiles: string;

  beforeAll(() => {
    goTiles = buildGoProgram('go-tiles');
  }, 120_000);

  const go = (input: { tiles: Tile[]; paths: string[]; sizes: number[] }): { paths: string[]; parsed: Array<Tile | null>; existing: Tile[][] } =>
    JSON.parse(execFileSync(goTiles, { input: JSON.stringify(input), maxBuffer: 64 * 1024 * 1024 }).toString());

  const random = (below: number) => Math.floor(Math.random() * below);
  /** Indexes of every magnitude, from 0 to 2^53 - 1. */
  const randomTile = (): Tile => ({
    level: random(64),
    index: Math.min(Number.MAX_SAFE_INTEGER, random(10 ** random(17))),
    width: random(2) === 0 ? 256 : 1 + random(255),
  });

  it('name a few hundred random tiles with the same paths, and read them back the same', () => {
    const tiles = Array.from({ length: 400 }, randomTile);
    const paths = tiles.map(tilePath);
    const answer = go({ tiles, paths: paths.map((path) => path.slice('tile/'.length)), sizes: [] });
    expect(answer.paths).toEqual(paths);
    expect(answer.parsed).toEqual(tiles);
  });

  /** Go reads levels past 63, which the specification does not allow, and indexes past 2^53 - 1, which a number here cannot hold. */
  const beyondOurRange = (path: string) => {
    const [level, ...index] = path.split('.p/')[0].split('/');
    return Number(level) > 63 || Number(index.map((element) => element.replace(/^x/, '')).join('')) > Number.MAX_SAFE_INTEGER;
  };

  it('refuse the same malformed paths', () => {
    const good = Array.from({ length: 100 }, () => tilePath(randomTile()).slice('tile/'.length));
    // One character changed, dropped or doubled, anywhere.
    const mutated = good.flatMap((path) => {
      const at = random(path.length);
      return [path.slice(0, at) + '0123456789x./p'[random(14)] + path.slice(at + 1), path.slice(0, at) + path.slice(at + 1), path.slice(0, at) + path[at] + path.slice(at)];
    });
    const fixed = ['0/x000/067', '0/067.p/0', '0/067.p/256', '0/067.p/08', '00/067', '0/67', '0/x01/067', 'data/000', '1/x001/x234'];
    const paths = [...new Set([...mutated, ...fixed])].filter((path) => !beyondOurRange(path));
    const parsed = go({ tiles: [], paths, sizes: [] }).parsed;
    const ours = paths.map((path) => {
      try {
        return parseTilePath(path);
      } catch {
        return null;
      }
    });
    expect(ours.map((tile, i) => [paths[i], tile])).toEqual(parsed.map((tile, i) => [paths[i], tile]));
    expect(ours.filter((tile) => tile === null).length).toBeGreaterThan(50);
  });

  it('give a tree of each size the same tiles: the full ones it covers and the partial one of each level', () => {
    const sizes = [0, 1, 255, 256, 257, 65_535, 65_536, 65_537, 70_000, ...Array.from({ length: 20 }, () => random(2 ** 20))];
    const existing = go({ tiles: [], paths: [], sizes }).existing;
    sizes.forEach((size, i) => {
      const ours = tilesForSize(size).flatMap(({ level, fullTiles, partialWidth }) => [
        ...Array.from({ length: fullTiles }, (_, index) => ({ level, index, width: 256 })),
        ...(partialWidth > 0 ? [{ level, index: fullTiles, width: partialWidth }] : []),
      ]);
      const key = (tile: Tile) => tilePath(tile);
      expect([size, ours.map(key).sort()]).toEqual([size, existing[i].map(key).sort()]);
      for (const tile of existing[i]) expect(tileWidthAt(tile.level, tile.index, size)).toBe(tile.width);
    });
  });
});
