import { NoteError, NoteSignature, ed25519Signer, ed25519Verifier, keyIdOf, parseVerifierKey, verifierKeyOf } from './signed-note';

/**
 * C2SP tlog-cosignature v1 with Ed25519 (c2sp.org/tlog-cosignature): a
 * witness's note signature on a checkpoint, stating that as of its timestamp
 * this is the largest consistent tree it has seen of that log. Signature
 * type 0x04 sets its key ID apart from the same key's note signatures; the
 * signed message starts with `cosignature/v1` and the time, so it can never
 * be mistaken for a signature of the note itself. The signature bytes are
 * the 8-byte big-endian timestamp, then the 64-byte Ed25519 signature.
 */

const COSIGNATURE_V1 = 0x04;
const TIMESTAMP_SIZE = 8;
const SIGNATURE_SIZE = 64;

export interface CosignatureSigner {
  name: string;
  keyId: Buffer;
  publicKey: Buffer;
  verifierKey: string;
  /** The cosignature line of a checkpoint (a note's text, ending in a newline) at a POSIX time in seconds. */
  cosign(checkpointText: string, timestampSeconds: number): NoteSignature;
}

export interface CosignatureVerifier {
  name: string;
  keyId: Buffer;
  publicKey: Buffer;
  /** The time the cosigner states, or a NoteError when the signature is not this cosigner's on this checkpoint. */
  verify(checkpointText: string, signature: NoteSignature): { timestamp: number };
}

/** The signed message: `cosignature/v1`, `time <seconds>`, then the checkpoint's whole text. */
function cosignedMessage(checkpointText: string, timestamp: number): Buffer {
  if (!checkpointText.endsWith('\n')) throw new NoteError('a checkpoint text ends in a newline');
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`, 'utf8');
}

/** A cosigner from its 32-byte Ed25519 seed, with its verifier key (type 0x04). */
export function cosignatureSigner(name: string, seed: Uint8Array): CosignatureSigner {
  const ed25519 = ed25519Signer(name, seed);
  const keyId = keyIdOf(name, COSIGNATURE_V1, ed25519.publicKey);
  return {
    name,
    keyId,
    publicKey: ed25519.publicKey,
    verifierKey: verifierKeyOf(name, COSIGNATURE_V1, ed25519.publicKey),
    cosign: (checkpointText, timestampSeconds) => {
      // A witness must not omit the time (c2sp.org/tlog-witness): zero would state nothing about when.
      if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 1) throw new NoteError('a cosignature time is a positive whole number of seconds');
      const timestamp = Buffer.alloc(TIMESTAMP_SIZE);
      timestamp.writeBigUInt64BE(BigInt(timestampSeconds));
      return { name, keyId, signature: Buffer.concat([timestamp, ed25519.sign(cosignedMessage(checkpointText, timestampSeconds))]) };
    },
  };
}

/** A verifier from a cosigner's vkey, `<name>+<8 hex key ID>+<base64(0x04 || 32-byte public key)>`. */
export function cosignatureVerifier(verifierKey: string): CosignatureVerifier {
  const { name, keyId, publicKey } = parseVerifierKey(verifierKey, COSIGNATURE_V1);
  const verifies = ed25519Verifier(publicKey);
  return {
    name,
    keyId,
    publicKey,
    verify: (checkpointText, signature) => {
      if (signature.name !== name || !signature.keyId.equals(keyId)) throw new NoteError(`not a cosignature by ${name}`);
      if (signature.signature.length !== TIMESTAMP_SIZE + SIGNATURE_SIZE) throw new NoteError('a cosignature is an 8-byte time and a 64-byte signature');
      const time = signature.signature.readBigUInt64BE(0);
      // The format allows times up to 2^63 - 1; past 2^53 seconds (some 285 million years) none is meant, and none fits a number.
      if (time > BigInt(Number.MAX_SAFE_INTEGER)) throw new NoteError('a cosignature time beyond any meant');
      const timestamp = Number(time);
      if (!verifies(cosignedMessage(checkpointText, timestamp), signature.signature.subarray(TIMESTAMP_SIZE))) throw new NoteError(`the cosignature of ${name} does not verify`);
      return { timestamp };
    },
  };
}
