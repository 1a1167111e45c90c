import { parseCheckpoint } from './checkpoint';
import { HASH_SIZE } from './merkle';
import { parseNote } from './signed-note';

/**
 * A C2SP tlog-proof (c2sp.org/tlog-proof): one text file that proves,
 * offline, that an entry is in a log: a header line, an optional `extra`
 * line (opaque bytes the reader needs to rebuild the leaf, unauthenticated),
 * `index <n>`, the inclusion proof one base64 hash a line, a blank line, and
 * the log's signed checkpoint verbatim with any witnesses' cosignatures.
 * Only the form is checked here; verifying the proof is the reader's policy.
 */

const HEADER = 'c2sp.org/tlog-proof@v1';
/** A tree of 2^63 leaves, the most a checkpoint can state, needs 63 hashes. */
const MAX_PROOF = 63;

export interface ProofFile {
  index: number;
  /** The `extra` line's bytes, absent when there is no such line. */
  leafExtra?: Buffer;
  /** The inclusion proof, from the leaf's sibling up to the root's child. */
  proof: Buffer[];
  /** The log's checkpoint as a signed note. */
  checkpointNote: string;
}

/** Why a proof file is refused. */
export class ProofFileError extends Error {
  override name = 'ProofFileError';
}

export function formatProofFile({ index, leafExtra, proof, checkpointNote }: ProofFile): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new ProofFileError(`not an entry index: ${index}`);
  // An empty extra would be a line the specification says to omit.
  if (leafExtra !== undefined && leafExtra.length === 0) throw new ProofFileError('extra data is absent, not empty');
  if (proof.length > MAX_PROOF || proof.some((hash) => hash.length !== HASH_SIZE)) throw new ProofFileError(`a proof is at most ${MAX_PROOF} hashes of ${HASH_SIZE} bytes`);
  checkCheckpoint(checkpointNote);
  const lines = [HEADER, ...(leafExtra ? [`extra ${leafExtra.toString('base64')}`] : []), `index ${index}`, ...proof.map((hash) => hash.toString('base64'))];
  return `${lines.join('\n')}\n\n${checkpointNote}`;
}

export function parseProofFile(text: string): ProofFile {
  const split = text.indexOf('\n\n');
  if (split < 0) throw new ProofFileError('a proof file is its proof lines, a blank line and a checkpoint');
  const lines = text.slice(0, split).split('\n');
  const checkpointNote = text.slice(split + 2);
  if (lines.shift() !== HEADER) throw new ProofFileError(`a proof file starts with ${HEADER}`);
  let leafExtra: Buffer | undefined;
  if (lines[0]?.startsWith('extra ')) {
    const encoded = lines.shift()!.slice('extra '.length);
    leafExtra = Buffer.from(encoded, 'base64');
    if (leafExtra.length === 0 || leafExtra.toString('base64') !== encoded) throw new ProofFileError('the extra line is base64 of the extra data');
  }
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() ?? '')?.[1];
  if (index === undefined || !Number.isSafeInteger(Number(index))) throw new ProofFileError('an index line is `index` and the entry index, in decimal');
  if (lines.length > MAX_PROOF) throw new ProofFileError(`a proof is at most ${MAX_PROOF} hashes`);
  const proof = lines.map((line) => {
    const hash = Buffer.from(line, 'base64');
    if (hash.length !== HASH_SIZE || hash.toString('base64') !== line) throw new ProofFileError(`a proof line is base64 of a ${HASH_SIZE}-byte hash`);
    return hash;
  });
  checkCheckpoint(checkpointNote);
  return { index: Number(index), ...(leafExtra ? { leafExtra } : {}), proof, checkpointNote };
}

function checkCheckpoint(note: string): void {
  try {
    parseCheckpoint(parseNote(note).text);
  } catch (error) {
    throw new ProofFileError(`the checkpoint is not a signed checkpoint: ${(error as Error).message}`);
  }
}
