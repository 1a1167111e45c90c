/**
 * The hash tiles of C2SP tlog-tiles (c2sp.org/tlog-tiles): a log serves its
 * Merkle tree as tiles of height 8, each up to 256 consecutive hashes of one
 * tree level, at `tile/<L>/<N>[.p/<W>]`. Tile level L holds tree level 8L;
 * its n-th tile holds the hashes of the complete subtrees (merkle.ts) of
 * that level from n * 256 on. Entry bundles (`tile/entries/...`) are not
 * served by this log, so they are not named here.
 */

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;
const MAX_LEVEL = 63;

/** A tile: `width` hashes, 256 when full, from the `index`-th tile of tile level `level`. */
export interface Tile {
  level: number;
  index: number;
  width: number;
}

/** A tile path that is not one, or not in the one form the specification allows. */
export class TilePathError extends Error {
  override name = 'TilePathError';
}

function checkTile({ level, index, width }: Tile): void {
  if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL) throw new RangeError(`a tile level is 0 to ${MAX_LEVEL}: ${level}`);
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`not a tile index: ${index}`);
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError(`a tile width is 1 to ${TILE_WIDTH}: ${width}`);
}

/** `tile/<L>/<N>[.p/<W>]`, N in 3-digit elements, all but the last prefixed `x`: index 1234067 is `x001/x234/067`. */
export function tilePath(tile: Tile): string {
  checkTile(tile);
  const elements = [String(tile.index % 1000).padStart(3, '0')];
  for (let rest = Math.floor(tile.index / 1000); rest > 0; rest = Math.floor(rest / 1000)) elements.unshift(`x${String(rest % 1000).padStart(3, '0')}`);
  return `tile/${tile.level}/${elements.join('/')}${tile.width === TILE_WIDTH ? '' : `.p/${tile.width}`}`;
}

const PATH = /^(0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * The tile a path names, given after `tile/` (`0/x001/x234/067.p/8`). Only
 * the form `tilePath` writes is accepted, so that one tile has one path (and
 * one cache entry): no leading zero elements, no width of 0 or of 256 and more.
 */
export function parseTilePath(path: string): Tile {
  const match = PATH.exec(path);
  if (!match) throw new TilePathError('not a tile path');
  const [, level, upper, last, width] = match;
  const elements = [...upper.split('/').filter(Boolean).map((element) => element.slice(1)), last];
  if (elements.length > 1 && elements[0] === '000') throw new TilePathError('a tile index has no leading zero elements');
  const index = elements.reduce((n, element) => n * 1000 + Number(element), 0);
  // A partial tile is narrower than a full one: `.p/256` would be a second path of the full tile.
  if (Number(level) > MAX_LEVEL || !Number.isSafeInteger(index) || Number(width) >= TILE_WIDTH) throw new TilePathError('a tile level, index or width out of range');
  return { level: Number(level), index, width: width === undefined ? TILE_WIDTH : Number(width) };
}

/** The tree level a tile's hashes are at, and the indexes of its subtrees there, [start, end). */
export function tileSpan(tile: Tile): { level: number; start: number; end: number } {
  checkTile(tile);
  return { level: tile.level * TILE_HEIGHT, start: tile.index * TILE_WIDTH, end: tile.index * TILE_WIDTH + tile.width };
}

/**
 * The width the tile at (`level`, `index`) has in a tree of `size`: 256 once
 * the tree covers it, the partial width `floor(size / 256^level) mod 256` if
 * it is the level's last, 0 if it does not exist (nor may be served). A
 * requested tile exists for that tree when its width is this one.
 */
export function tileWidthAt(level: number, index: number, size: number): number {
  checkTile({ level, index, width: 1 });
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`not a tree size: ${size}`);
  const hashes = Math.floor(size / TILE_WIDTH ** level);
  const full = Math.floor(hashes / TILE_WIDTH);
  if (index < full) return TILE_WIDTH;
  return index === full ? hashes % TILE_WIDTH : 0;
}

/**
 * The tiles of a tree of `size`, level by level: tiles 0 to `fullTiles` - 1
 * are full, and tile `fullTiles` is partial with `partialWidth` hashes when
 * that is not 0. A tree of 70,000 is 273 full level-0 tiles and one of 112,
 * one full level-1 tile and one of 17, and one level-2 tile of 1.
 */
export function tilesForSize(size: number): Array<{ level: number; fullTiles: number; partialWidth: number }> {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`not a tree size: ${size}`);
  const levels = [];
  for (let level = 0; Math.floor(size / TILE_WIDTH ** level) > 0; level += 1) {
    const hashes = Math.floor(size / TILE_WIDTH ** level);
    levels.push({ level, fullTiles: Math.floor(hashes / TILE_WIDTH), partialWidth: hashes % TILE_WIDTH });
  }
  return levels;
}
