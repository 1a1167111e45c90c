import { HASH_SIZE } from './merkle';
import { NoteError } from './signed-note';

/**
 * The body of a C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint): the log's
 * origin, the tree size in decimal, the root hash in base64, each on its own
 * line. Signed as a note by the log, and cosigned by witnesses.
 */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

export function checkpointText({ origin, size, root }: Checkpoint): string {
  if (origin === '' || /[\s+]/u.test(origin)) throw new NoteError('an origin is non-empty and has neither spaces nor "+"');
  if (!Number.isSafeInteger(size) || size < 0) throw new NoteError('a tree size is a whole number');
  if (root.length !== HASH_SIZE) throw new NoteError(`a root is ${HASH_SIZE} bytes`);
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

/** The checkpoint a note's text states; extension lines are refused, since this log writes none and none can be audited. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[3] !== '') throw new NoteError('a checkpoint is an origin, a tree size and a root hash, one per line');
  const [origin, size, root] = lines;
  const hash = Buffer.from(root, 'base64');
  if (origin === '' || !/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)) || hash.length !== HASH_SIZE || hash.toString('base64') !== root) {
    throw new NoteError('not a checkpoint');
  }
  return { origin, size: Number(size), root: hash };
}
