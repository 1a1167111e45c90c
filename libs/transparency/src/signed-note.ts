import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed-note (c2sp.org/signed-note): a text ending in a newline, a
 * blank line, then one line per signature, `— <key name> base64(key ID ||
 * signature)`. Only Ed25519 (signature type 0x01) is used here; signatures
 * of other types or unknown keys are kept and ignored, as the format
 * requires, so witnesses' cosignatures ride along. The vkey helpers serve
 * other signature types of an Ed25519 key too (cosignature.ts).
 */

const ED25519 = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
/** RFC 8410 DER prefixes that turn 32 raw key bytes into a PKCS#8 private key and an SPKI public key. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
/** The format requires accepting at least 16 signatures; more than this is refused as a note no one meant. */
const MAX_SIGNATURES = 100;

/** Why a note, a key or a signature is refused. */
export class NoteError extends Error {
  override name = 'NoteError';
}

export interface NoteSigner {
  name: string;
  keyId: Buffer;
  sign(text: Buffer): Buffer;
}

export interface NoteVerifier {
  name: string;
  keyId: Buffer;
  verify(text: Buffer, signature: Buffer): boolean;
}

/** A signature line of a note: who claims to have signed, and the signature bytes after the key ID. */
export interface NoteSignature {
  name: string;
  keyId: Buffer;
  signature: Buffer;
}

/** key ID = SHA-256(key name || 0x0A || signature type || public key)[:4]. */
export function keyIdOf(name: string, type: number, publicKey: Uint8Array): Buffer {
  return createHash('sha256').update(name).update(Buffer.from([0x0a, type])).update(publicKey).digest().subarray(0, 4);
}

function checkKeyName(name: string): void {
  if (name === '' || /[\s+]/u.test(name)) throw new NoteError('a key name is non-empty and has neither spaces nor "+"');
}

/** An Ed25519 signer from its 32-byte seed, with its verifier key in the C2SP vkey format. */
export function ed25519Signer(name: string, seed: Uint8Array): NoteSigner & { publicKey: Buffer; verifierKey: string } {
  checkKeyName(name);
  if (seed.length !== 32) throw new NoteError('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length);
  return {
    name,
    keyId: keyIdOf(name, ED25519, publicKey),
    publicKey,
    verifierKey: verifierKeyOf(name, ED25519, publicKey),
    sign: (text) => sign(null, text, privateKey),
  };
}

/** A vkey, `<name>+<8 hex key ID>+<base64(signature type || public key)>`. */
export function verifierKeyOf(name: string, type: number, publicKey: Uint8Array): string {
  return `${name}+${keyIdOf(name, type, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;
}

/**
 * The name, key ID and 32-byte public key of a vkey of an Ed25519 key used
 * with signature type `type` (0x01 for note signatures; other types, such as
 * cosignatures, reuse the key with another key ID).
 */
export function parseVerifierKey(verifierKey: string, type: number): { name: string; keyId: Buffer; publicKey: Buffer } {
  // The key's base64 may itself hold "+": the name ends at the first, the key ID at the second.
  const [name, id, ...rest] = verifierKey.split('+');
  const encoded = rest.join('+');
  if (id === undefined || rest.length === 0) throw new NoteError('a verifier key is <name>+<key ID>+<key>');
  checkKeyName(name);
  const key = Buffer.from(encoded, 'base64');
  if (!/^[0-9a-f]{8}$/.test(id) || key.toString('base64') !== encoded || key.length !== 33 || key[0] !== type) {
    throw new NoteError(`not an Ed25519 verifier key of signature type 0x${type.toString(16).padStart(2, '0')}`);
  }
  const publicKey = key.subarray(1);
  const keyId = Buffer.from(id, 'hex');
  if (!keyId.equals(keyIdOf(name, type, publicKey))) throw new NoteError("the verifier key's ID does not match its name and key");
  return { name, keyId, publicKey };
}

/** Checks Ed25519 signatures by a 32-byte public key. */
export function ed25519Verifier(publicKey: Uint8Array): (message: Uint8Array, signature: Uint8Array) => boolean {
  const key: KeyObject = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
  return (message, signature) => signature.length === 64 && verify(null, message, key, signature);
}

/** A verifier from a vkey, `<name>+<8 hex key ID>+<base64(0x01 || 32-byte public key)>`. */
export function noteVerifier(verifierKey: string): NoteVerifier & { publicKey: Buffer } {
  const { name, keyId, publicKey } = parseVerifierKey(verifierKey, ED25519);
  return { name, keyId, publicKey, verify: ed25519Verifier(publicKey) };
}

/** Signs `text` (which ends in a newline) with each signer, after the signatures it already carries, if any. */
export function signNote(text: string, signers: readonly NoteSigner[], existing: readonly NoteSignature[] = []): string {
  checkText(text);
  const body = Buffer.from(text, 'utf8');
  const lines = [...existing, ...signers.map((s) => ({ name: s.name, keyId: s.keyId, signature: s.sign(body) }))].map(signatureLine);
  return `${text}\n${lines.join('')}`;
}

/** `— <key name> base64(key ID || signature)` and a newline: how a signature is written in a note, and how a witness answers. */
export function signatureLine({ name, keyId, signature }: NoteSignature): string {
  return `${SIGNATURE_PREFIX}${name} ${Buffer.concat([keyId, signature]).toString('base64')}\n`;
}

/** A note split into its text and signature lines, nothing verified. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  // Control characters but the newline, and U+FFFD (what invalid UTF-8 decodes to), are refused outright.
  if (/[\u0000-\u0009\u000b-\u001f\ufffd]/u.test(note)) throw new NoteError('a note has no control characters but newlines');
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new NoteError('a note is a text, a blank line and signature lines');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteError('too many signatures');
  const signatures = lines.map((line): NoteSignature => {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw new NoteError('a signature line starts with an em dash and a space');
    const parts = line.slice(SIGNATURE_PREFIX.length).split(' ');
    if (parts.length !== 2) throw new NoteError('a signature line is a key name and a signature');
    const [name, encoded] = parts;
    checkKeyName(name);
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.length < 5 || bytes.toString('base64') !== encoded) throw new NoteError('a signature is base64 of a key ID and the signature');
    return { name, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) };
  });
  return { text, signatures };
}

/**
 * Opens a note with the verifiers the reader trusts: every signature by a
 * known key (same name and ID) must verify, and at least one must; others
 * are ignored. Returns the text and the names of the keys that signed it.
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): { text: string; signatures: NoteSignature[]; verifiedBy: string[] } {
  const { text, signatures } = parseNote(note);
  const body = Buffer.from(text, 'utf8');
  const verifiedBy: string[] = [];
  for (const signature of signatures) {
    const verifier = verifiers.find((v) => v.name === signature.name && v.keyId.equals(signature.keyId));
    if (!verifier) continue;
    if (!verifier.verify(body, signature.signature)) throw new NoteError(`the signature of ${signature.name} does not verify`);
    verifiedBy.push(signature.name);
  }
  if (verifiedBy.length === 0) throw new NoteError('no signature by a known key');
  return { text, signatures, verifiedBy };
}

function checkText(text: string): void {
  if (!text.endsWith('\n') || /[\u0000-\u0009\u000b-\u001f]/u.test(text)) throw new NoteError('a note text ends in a newline and has no control characters but newlines');
}
