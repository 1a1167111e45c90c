import { randomBytes } from 'node:crypto';
import { checkpointText, parseCheckpoint } from './checkpoint';
import { NoteError, ed25519Signer, noteVerifier, openNote, parseNote, parseVerifierKey, signNote, signatureLine, verifierKeyOf } from './signed-note';

// The example of c2sp.org/signed-note, section "Verifier keys".
const SPEC_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const SPEC_NOTE = 'This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

describe('C2SP signed notes', () => {
  it("open the specification's example with its verifier key, and refuse it changed by one byte", () => {
    expect(openNote(SPEC_NOTE, [noteVerifier(SPEC_VKEY)])).toMatchObject({ text: 'This is an example message.\n', verifiedBy: ['example.com/foo'] });
    expect(() => openNote(SPEC_NOTE.replace('example message', 'example massage'), [noteVerifier(SPEC_VKEY)])).toThrow(NoteError);
  });

  it('are signed so that the signer\'s own verifier key opens them, and a cosignature rides along', () => {
    const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
    const witness = ed25519Signer('witness.example/auditor', randomBytes(32));
    const signed = signNote('ledger.example/consent-ledger\n7\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n', [log]);
    const cosigned = signNote(parseNote(signed).text, [witness], parseNote(signed).signatures);
    expect(openNote(cosigned, [noteVerifier(log.verifierKey)]).verifiedBy).toEqual(['ledger.example/consent-ledger']);
    expect(openNote(cosigned, [noteVerifier(log.verifierKey), noteVerifier(witness.verifierKey)]).verifiedBy).toEqual(['ledger.example/consent-ledger', 'witness.example/auditor']);
    // Unknown keys are ignored; a note no known key signed is refused.
    expect(() => openNote(signed, [noteVerifier(witness.verifierKey)])).toThrow('no signature by a known key');
  });

  it('refuse a note whose known signature fails, even beside one that verifies', () => {
    const log = ed25519Signer('ledger.example/log', randomBytes(32));
    const impostor = ed25519Signer('ledger.example/log', randomBytes(32));
    const signed = signNote('a\n', [log]);
    const { text, signatures } = parseNote(signed);
    const forged = signNote(text, [], [...signatures, { ...parseNote(signNote(text, [impostor])).signatures[0], keyId: log.keyId }]);
    expect(() => openNote(forged, [noteVerifier(log.verifierKey)])).toThrow('does not verify');
  });

  it('read a verifier key whose base64 holds "+"', () => {
    const signer = [...Array(256).keys()].map((i) => ed25519Signer('ledger.example/log', Buffer.alloc(32, i))).find((s) => s.verifierKey.split('+').length > 3)!;
    expect(noteVerifier(signer.verifierKey).publicKey).toEqual(signer.publicKey);
  });

  it('write and read vkeys of any signature type of an Ed25519 key, refusing one of another type', () => {
    const { name, keyId, publicKey } = parseVerifierKey(SPEC_VKEY, 0x01);
    expect({ name, keyId: keyId.toString('hex') }).toEqual({ name: 'example.com/foo', keyId: '530d903a' });
    expect(verifierKeyOf(name, 0x01, publicKey)).toBe(SPEC_VKEY);
    const typed = verifierKeyOf(name, 0x04, publicKey);
    expect(parseVerifierKey(typed, 0x04).publicKey).toEqual(publicKey);
    expect(() => parseVerifierKey(typed, 0x01)).toThrow('signature type 0x01');
    expect(() => parseVerifierKey(SPEC_VKEY, 0x04)).toThrow('signature type 0x04');
  });

  it('write a signature line as a note carries it', () => {
    const [signature] = parseNote(SPEC_NOTE).signatures;
    expect(signatureLine(signature)).toBe(SPEC_NOTE.slice(SPEC_NOTE.indexOf('\u2014')));
  });

  it('refuse malformed keys and notes', () => {
    expect(() => noteVerifier('example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k')).toThrow("key's ID does not match");
    expect(() => noteVerifier('example.com/foo+530d903a')).toThrow(NoteError);
    expect(() => ed25519Signer('has space', randomBytes(32))).toThrow(NoteError);
    expect(() => parseNote('no signatures\n')).toThrow(NoteError);
    expect(() => parseNote('text\n\n- dash name AAAA\n')).toThrow(NoteError);
    expect(() => parseNote('bell\u0007\n\n\u2014 a AAAAAAA=\n')).toThrow(NoteError);
  });
});

describe('C2SP checkpoints', () => {
  it('are three lines, origin, size and base64 root, read back as written', () => {
    const checkpoint = { origin: 'ledger.example/consent-ledger', size: 20852163, root: Buffer.alloc(32, 7) };
    const text = checkpointText(checkpoint);
    expect(text).toBe(`ledger.example/consent-ledger\n20852163\n${Buffer.alloc(32, 7).toString('base64')}\n`);
    expect(parseCheckpoint(text)).toEqual(checkpoint);
  });

  it('refuse leading zeroes, a short root, extension lines and a missing line', () => {
    const root = Buffer.alloc(32).toString('base64');
    for (const text of [`o\n07\n${root}\n`, `o\n7\n${Buffer.alloc(31).toString('base64')}\n`, `o\n7\n${root}\nextension\n`, `o\n7\n`, `\n7\n${root}\n`]) {
      expect(() => parseCheckpoint(text)).toThrow(NoteError);
    }
  });
});
