import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { checkpointText } from './checkpoint';
import { cosignatureSigner, cosignatureVerifier } from './cosignature';
import { NoteError, ed25519Signer, keyIdOf, noteVerifier, openNote, parseNote, signNote } from './signed-note';

// The example of c2sp.org/tlog-cosignature, section "Format": a checkpoint cosigned at 1679315147.
const SPEC_NOTE = [
  'example.com/behind-the-sofa',
  '20852163',
  'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=',
  '',
  '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=',
  '\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==',
  '',
].join('\n');

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

describe('C2SP cosignatures (tlog-cosignature v1, Ed25519)', () => {
  const seed = randomBytes(32);
  const witness = cosignatureSigner('witness.example/w1', seed);
  const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
  const text = checkpointText({ origin: log.name, size: 20852163, root: Buffer.alloc(32, 9) });

  it("lay out the specification's example as an 8-byte big-endian time after the key ID, then 64 signature bytes", () => {
    const cosignature = parseNote(SPEC_NOTE).signatures[1];
    expect(cosignature.signature).toHaveLength(72);
    expect(Number(cosignature.signature.readBigUInt64BE(0))).toBe(1679315147);
  });

  it('use key ID SHA-256(name || "\\n" || 0x04 || public key)[:4] and a vkey of type 0x04, apart from the same key\'s note signatures', () => {
    const expectedId = createHash('sha256').update('witness.example/w1\n').update(Buffer.from([0x04])).update(witness.publicKey).digest().subarray(0, 4);
    expect(witness.keyId).toEqual(expectedId);
    expect(witness.verifierKey).toBe(`witness.example/w1+${expectedId.toString('hex')}+${Buffer.concat([Buffer.from([0x04]), witness.publicKey]).toString('base64')}`);
    const noteKey = ed25519Signer('witness.example/w1', seed);
    expect(noteKey.publicKey).toEqual(witness.publicKey);
    expect(noteKey.keyId).toEqual(keyIdOf('witness.example/w1', 0x01, witness.publicKey));
    expect(noteKey.keyId).not.toEqual(witness.keyId);
    // Neither kind of vkey passes for the other.
    expect(() => noteVerifier(witness.verifierKey)).toThrow(NoteError);
    expect(() => cosignatureVerifier(noteKey.verifierKey)).toThrow(NoteError);
  });

  it('sign exactly "cosignature/v1\\ntime <t>\\n" and the checkpoint text, after the big-endian time', () => {
    const { name, keyId, signature } = witness.cosign(text, 1679315147);
    expect({ name, keyId }).toEqual({ name: witness.name, keyId: witness.keyId });
    expect(signature.subarray(0, 8)).toEqual(Buffer.from('00000000641850cb', 'hex'));
    const message = Buffer.from(`cosignature/v1\ntime 1679315147\n${text}`);
    const publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519, witness.publicKey]), format: 'der', type: 'spki' });
    expect(verify(null, message, publicKey, signature.subarray(8))).toBe(true);
    expect(cosignatureVerifier(witness.verifierKey).verify(text, { name, keyId, signature })).toEqual({ timestamp: 1679315147 });
  });

  it('ride on the log\'s signed note as one more signature line, which the log\'s key ignores and the witness\'s verifies', () => {
    const signed = signNote(text, [log]);
    const { signatures } = parseNote(signed);
    const cosigned = signNote(text, [], [...signatures, witness.cosign(text, 1700000000)]);
    expect(cosigned.split('\n').filter((line) => line.startsWith('\u2014 '))).toHaveLength(2);
    expect(openNote(cosigned, [noteVerifier(log.verifierKey)]).verifiedBy).toEqual([log.name]);
    const line = parseNote(cosigned).signatures.find((s) => s.keyId.equals(witness.keyId))!;
    expect(cosignatureVerifier(witness.verifierKey).verify(parseNote(cosigned).text, line)).toEqual({ timestamp: 1700000000 });
  });

  it('refuse another checkpoint, another time, another key, another name, and a wrong length', () => {
    const verifier = cosignatureVerifier(witness.verifierKey);
    const cosignature = witness.cosign(text, 1700000000);
    const other = checkpointText({ origin: log.name, size: 20852164, root: Buffer.alloc(32, 9) });
    expect(() => verifier.verify(other, cosignature)).toThrow('does not verify');
    const retimed = Buffer.from(cosignature.signature);
    retimed.writeBigUInt64BE(1700000001n);
    expect(() => verifier.verify(text, { ...cosignature, signature: retimed })).toThrow('does not verify');
    const impostor = cosignatureSigner(witness.name, randomBytes(32));
    expect(() => verifier.verify(text, { ...impostor.cosign(text, 1700000000), keyId: witness.keyId })).toThrow('does not verify');
    expect(() => verifier.verify(text, { ...cosignature, name: 'witness.example/w2' })).toThrow('not a cosignature by');
    expect(() => verifier.verify(text, { ...cosignature, keyId: Buffer.from('00000000', 'hex') })).toThrow('not a cosignature by');
    expect(() => verifier.verify(text, { ...cosignature, signature: cosignature.signature.subarray(0, 71) })).toThrow('8-byte time and a 64-byte signature');
    const far = Buffer.from(cosignature.signature);
    far.writeBigUInt64BE(2n ** 63n - 1n);
    expect(() => verifier.verify(text, { ...cosignature, signature: far })).toThrow('beyond any meant');
  });

  it('are made only at a positive whole second, over a text ending in a newline', () => {
    for (const time of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN]) expect(() => witness.cosign(text, time)).toThrow(NoteError);
    expect(() => witness.cosign(text.slice(0, -1), 1)).toThrow(NoteError);
    expect(() => cosignatureSigner('has space', seed)).toThrow(NoteError);
    expect(() => cosignatureSigner('w', randomBytes(31))).toThrow(NoteError);
  });
});
