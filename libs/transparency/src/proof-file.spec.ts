import { randomBytes } from 'node:crypto';
import { checkpointText, parseCheckpoint } from './checkpoint';
import { cosignatureSigner } from './cosignature';
import { Subtree, assembleProof, foldSubtrees, inclusionProofPlan, leafHash, nodeHash, rootPlan, verifyInclusion } from './merkle';
import { ProofFileError, formatProofFile, parseProofFile } from './proof-file';
import { ed25519Signer, openNote, noteVerifier, parseNote, signNote } from './signed-note';

describe('C2SP tlog-proof files', () => {
  const leaves = Array.from({ length: 11 }, (_, i) => Buffer.from(`entry ${i}`));
  const hashes = leaves.map(leafHash);
  const subtree = ({ level, index }: Subtree): Buffer =>
    level === 0 ? hashes[index] : nodeHash(subtree({ level: level - 1, index: 2 * index }), subtree({ level: level - 1, index: 2 * index + 1 }));
  const log = ed25519Signer('example.com/fancylog', randomBytes(32));
  const witness = cosignatureSigner('witness1.example', randomBytes(32));
  const text = checkpointText({ origin: log.name, size: leaves.length, root: foldSubtrees(rootPlan(leaves.length).map(subtree)) });
  const signed = signNote(text, [log]);
  const checkpointNote = signNote(text, [], [...parseNote(signed).signatures, witness.cosign(text, 1700000000)]);
  const proof = assembleProof(inclusionProofPlan(7, leaves.length), subtree);

  it("are laid out as the specification's example: header, extra, index, hashes, a blank line, the checkpoint verbatim", () => {
    const extra = Buffer.from('YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ', 'base64');
    const file = formatProofFile({ index: 7, leafExtra: extra, proof, checkpointNote });
    expect(file).toBe(['c2sp.org/tlog-proof@v1', 'extra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ', 'index 7', ...proof.map((h) => h.toString('base64')), '', checkpointNote].join('\n'));
    expect(formatProofFile({ index: 7, proof, checkpointNote })).toBe(['c2sp.org/tlog-proof@v1', 'index 7', ...proof.map((h) => h.toString('base64')), '', checkpointNote].join('\n'));
  });

  it('read back what they write, and the proof they carry verifies against the checkpoint they carry', () => {
    for (const file of [
      { index: 7, leafExtra: Buffer.from('context'), proof, checkpointNote },
      { index: 7, proof, checkpointNote },
      { index: 0, proof: [], checkpointNote: signNote(checkpointText({ origin: log.name, size: 1, root: hashes[0] }), [log]) },
    ]) {
      expect(parseProofFile(formatProofFile(file))).toEqual(file);
    }
    const read = parseProofFile(formatProofFile({ index: 7, proof, checkpointNote }));
    const { size, root } = parseCheckpoint(openNote(read.checkpointNote, [noteVerifier(log.verifierKey)]).text);
    expect(() => verifyInclusion(read.index, size, leafHash(leaves[7]), read.proof, root)).not.toThrow();
  });

  it('refuse a wrong header, a misplaced or empty extra, a malformed index, a bad hash, a missing blank line or checkpoint', () => {
    const good = formatProofFile({ index: 7, leafExtra: Buffer.from('x'), proof, checkpointNote });
    const h = proof[0].toString('base64');
    const refused = [
      good.replace('c2sp.org/tlog-proof@v1', 'c2sp.org/tlog-proof@v2'),
      good.replace('extra eA==\nindex 7', 'index 7\nextra eA=='),
      good.replace('extra eA==', 'extra '),
      good.replace('extra eA==', 'extra eA'),
      good.replace('index 7', 'index 07'),
      good.replace('index 7', 'index -7'),
      good.replace('index 7', 'index 9007199254740992'),
      good.replace('index 7', 'index'),
      good.replace(`\n${h}\n`, `\n${h.slice(0, -4)}\n`),
      good.replace(`\n${h}\n`, `\n${h} \n`),
      good.replace(`\n${h}\n`, `\n\n${h}\n`),
      good.replace('\n\n', '\n'),
      good.slice(0, good.indexOf('\n\n') + 2),
      good.replace(text, text.replace('\n11\n', '\n011\n')),
      good.slice(0, -1),
      formatProofFile({ index: 7, proof, checkpointNote }).replace(`\n${h}\n`, `\n${`${h}\n`.repeat(64)}`),
    ];
    for (const file of refused) expect(() => parseProofFile(file)).toThrow(ProofFileError);
  });

  it('refuse to write what cannot be read back', () => {
    expect(() => formatProofFile({ index: -1, proof, checkpointNote })).toThrow(ProofFileError);
    expect(() => formatProofFile({ index: 7, leafExtra: Buffer.alloc(0), proof, checkpointNote })).toThrow(ProofFileError);
    expect(() => formatProofFile({ index: 7, proof: [Buffer.alloc(31)], checkpointNote })).toThrow(ProofFileError);
    expect(() => formatProofFile({ index: 7, proof, checkpointNote: text })).toThrow(ProofFileError);
  });
});
