import { cosignatureVerifier } from './cosignature';
import { NoteError, NoteSignature, parseNote } from './signed-note';
import { AddCheckpointRequest, formatAddCheckpointRequest } from './witness';

/**
 * The log's side of C2SP tlog-witness `add-checkpoint`: asks one witness to
 * cosign a checkpoint and says what came of it, never throwing for what the
 * witness or the network did, so a log can ask its witnesses together and
 * weigh the answers. A cosignature is returned only once it verifies under
 * the witness's verifier key.
 */

export interface WitnessEndpoint {
  /** The witness's submission prefix: `<url>/add-checkpoint` is posted to. */
  url: string;
  /** The witness's cosignature verifier key (type 0x04). */
  verifierKey: string;
  /** How long to wait for the whole answer; 10 seconds unless given. */
  timeoutMs?: number;
}

export type CosignatureOutcome =
  | { outcome: 'cosigned'; signature: NoteSignature; timestamp: number }
  /** The witness last cosigned another size: ask again from that one. */
  | { outcome: 'conflict'; witnessSize: number }
  | { outcome: 'refused'; status: number; reason: string }
  | { outcome: 'unreachable'; reason: string };

/** What is kept of a refusal's body: enough to say why, not whatever a witness sends. */
const MAX_REASON = 500;

export async function requestCosignature(witness: WitnessEndpoint, request: AddCheckpointRequest, fetchFn: typeof fetch = fetch): Promise<CosignatureOutcome> {
  // A key or request that is not one is the caller's mistake, thrown before anything is sent.
  const verifier = cosignatureVerifier(witness.verifierKey);
  const body = formatAddCheckpointRequest(request);
  let status: number;
  let contentType: string;
  let text: string;
  try {
    const response = await fetchFn(`${witness.url.replace(/\/+$/, '')}/add-checkpoint`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(witness.timeoutMs ?? 10_000),
    });
    status = response.status;
    contentType = response.headers.get('content-type') ?? '';
    text = await response.text();
  } catch (error) {
    return { outcome: 'unreachable', reason: error instanceof Error ? error.message : String(error) };
  }
  if (status === 409) {
    const size = /^(0|[1-9][0-9]*)\n$/.exec(text)?.[1];
    if (contentType.split(';')[0].trim() === 'text/x.tlog.size' && size !== undefined && Number.isSafeInteger(Number(size))) return { outcome: 'conflict', witnessSize: Number(size) };
    return { outcome: 'refused', status, reason: "a conflict without the witness's size as text/x.tlog.size" };
  }
  if (status !== 200) return { outcome: 'refused', status, reason: text.trim().slice(0, MAX_REASON) };
  try {
    // The answer is signature lines: appended to the checkpoint, they read as one note, of the same text.
    const checkpoint = parseNote(request.checkpointNote);
    const answered = parseNote(request.checkpointNote + text);
    if (answered.text !== checkpoint.text) return { outcome: 'refused', status, reason: 'the answer is not signature lines' };
    const signature = answered.signatures.slice(checkpoint.signatures.length).find((s) => s.name === verifier.name && s.keyId.equals(verifier.keyId));
    if (!signature) return { outcome: 'refused', status, reason: "the answer holds no cosignature by the witness's key" };
    return { outcome: 'cosigned', signature, ...verifier.verify(checkpoint.text, signature) };
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    return { outcome: 'refused', status, reason: `the answer is not a valid cosignature: ${error.message}` };
  }
}
