import { parseCheckpoint } from './checkpoint';
import { CosignatureSigner } from './cosignature';
import { EMPTY_ROOT, HASH_SIZE, ProofError, verifyConsistency } from './merkle';
import { NoteError, NoteSignature, NoteVerifier, openNote, parseNote, signatureLine } from './signed-note';

/**
 * The witness side of C2SP tlog-witness `add-checkpoint`
 * (c2sp.org/tlog-witness), as a pure decision: given what the witness last
 * cosigned of the one log it witnesses, a request's body and the time, the
 * HTTP answer and the state to keep. The witness cosigns a checkpoint only
 * if it extends, by a verified consistency proof, the last one it cosigned,
 * so a log cannot show it a fork or take it back to a smaller tree. The
 * caller keeps the new state durably before answering, and decides one
 * request at a time.
 */

/** The proof of a tree of 2^63 leaves from one of 1 is at most 63 hashes; the specification caps a request there. */
const MAX_PROOF = 63;
const TEXT = 'text/plain; charset=utf-8';
const SIZE = 'text/x.tlog.size';

/** The latest checkpoint the witness cosigned: the log's origin, its size and root. */
export interface WitnessState {
  origin: string;
  size: number;
  root: Buffer;
}

export interface AddCheckpointRequest {
  /** The size of the checkpoint the client believes the witness last cosigned, 0 for none. */
  oldSize: number;
  /** The consistency proof from that size to the checkpoint's. */
  proof: Buffer[];
  /** The log's checkpoint, a signed note. */
  checkpointNote: string;
}

export type AddCheckpointAnswer =
  | { status: 200; contentType: string; body: string; signature: NoteSignature; newState: WitnessState }
  | { status: 400 | 403 | 404 | 409 | 422; contentType: string; body: string };

/** `old <size>`, the proof one base64 hash a line, a blank line, the checkpoint. */
export function formatAddCheckpointRequest({ oldSize, proof, checkpointNote }: AddCheckpointRequest): string {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) throw new NoteError(`not a tree size: ${oldSize}`);
  if (proof.length > MAX_PROOF || proof.some((hash) => hash.length !== HASH_SIZE)) throw new NoteError(`a proof is at most ${MAX_PROOF} hashes of ${HASH_SIZE} bytes`);
  parseNote(checkpointNote);
  return [`old ${oldSize}`, ...proof.map((hash) => hash.toString('base64')), '', checkpointNote].join('\n');
}

export function parseAddCheckpointRequest(body: string): AddCheckpointRequest {
  const split = body.indexOf('\n\n');
  if (split < 0) throw new NoteError('a request is an old size line, proof lines, a blank line and a checkpoint');
  const [old, ...lines] = body.slice(0, split).split('\n');
  const oldSize = /^old (0|[1-9][0-9]*)$/.exec(old)?.[1];
  if (oldSize === undefined || !Number.isSafeInteger(Number(oldSize))) throw new NoteError('an old size line is `old` and a tree size in decimal');
  if (lines.length > MAX_PROOF) throw new NoteError(`a proof is at most ${MAX_PROOF} hashes`);
  const proof = lines.map((line) => {
    const hash = Buffer.from(line, 'base64');
    if (hash.length !== HASH_SIZE || hash.toString('base64') !== line) throw new NoteError(`a proof line is base64 of a ${HASH_SIZE}-byte hash`);
    return hash;
  });
  const checkpointNote = body.slice(split + 2);
  parseNote(checkpointNote);
  return { oldSize: Number(oldSize), proof, checkpointNote };
}

export interface WitnessConfig {
  /** The log's key; its name is the log's origin, as in its checkpoints. */
  logVerifier: NoteVerifier;
  cosigner: CosignatureSigner;
  /** POSIX time in seconds, the cosignature's timestamp. */
  now: number;
}

/** The answer to `POST add-checkpoint` with `body`, and the state to keep (persisted before answering) when it is 200. */
export function addCheckpoint(state: WitnessState | null, body: string, { logVerifier, cosigner, now }: WitnessConfig): AddCheckpointAnswer {
  const origin = logVerifier.name;
  if (state && state.origin !== origin) throw new Error(`the witness's state is of ${state.origin}, not of ${origin}`);
  let request: AddCheckpointRequest;
  let checkpoint: WitnessState;
  try {
    request = parseAddCheckpointRequest(body);
    checkpoint = parseCheckpoint(parseNote(request.checkpointNote).text);
  } catch (error) {
    return refuse(400, error);
  }
  if (checkpoint.origin !== origin) return refuse(404, `this witness does not witness ${checkpoint.origin}`);
  let text: string;
  try {
    // Signatures by other keys are ignored; one by the log's key that fails refuses the note.
    text = openNote(request.checkpointNote, [logVerifier]).text;
  } catch (error) {
    return refuse(403, error);
  }
  if (request.oldSize > checkpoint.size) return refuse(400, `the old size ${request.oldSize} is past the checkpoint's size ${checkpoint.size}`);
  const cosignedSize = state?.size ?? 0;
  if (request.oldSize !== cosignedSize) return { status: 409, contentType: SIZE, body: `${cosignedSize}\n` };
  if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT)) return refuse(422, 'a checkpoint of size 0 has the root of the empty tree');
  if (request.oldSize === 0) {
    if (request.proof.length > 0) return refuse(422, 'no proof is needed from the empty tree, and none is taken');
  } else {
    try {
      verifyConsistency(request.oldSize, checkpoint.size, request.proof, state!.root, checkpoint.root);
    } catch (error) {
      if (error instanceof ProofError) return refuse(422, `the checkpoint is not consistent with the one last cosigned: ${error.message}`);
      throw error;
    }
  }
  const signature = cosigner.cosign(text, now);
  return { status: 200, contentType: TEXT, body: signatureLine(signature), signature, newState: checkpoint };
}

function refuse(status: 400 | 403 | 404 | 422, reason: unknown): AddCheckpointAnswer {
  if (typeof reason !== 'string' && !(reason instanceof NoteError)) throw reason;
  return { status, contentType: TEXT, body: `${typeof reason === 'string' ? reason : reason.message}\n` };
}
