import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  Subtree,
  assembleProof,
  checkpointText,
  consistencyProofPlan,
  cosignatureSigner,
  ed25519Signer,
  foldSubtrees,
  inclusionProofPlan,
  leafHash,
  nodeHash,
  parseNote,
  rootPlan,
  signNote,
  tilePath,
  tileSpan,
  tilesForSize,
} from '../src';
import { buildGoProgram } from './go';

/**
 * The ledger's checkpoints, proofs and cosignatures, checked by an
 * implementation nobody here wrote: Go's golang.org/x/mod/sumdb note and
 * tlog, and crypto/ed25519 (go-verifier/). The program is built once per run.
 */
describe("Go's sumdb note and tlog", () => {
  let verifier: string;

  beforeAll(() => {
    verifier = buildGoProgram('go-verifier');
  }, 120_000);

  const run = (input: unknown) => {
    try {
      return { ok: true, out: execFileSync(verifier, { input: JSON.stringify(input) }).toString() };
    } catch (error) {
      return { ok: false, out: String((error as { stderr?: Buffer }).stderr ?? error) };
    }
  };

  const leaves = Array.from({ length: 37 }, (_, i) => Buffer.from(`leaf ${i}`));
  const hashes = leaves.map(leafHash);
  const subtree = ({ level, index }: Subtree): Buffer =>
    level === 0 ? hashes[index] : nodeHash(subtree({ level: level - 1, index: 2 * index }), subtree({ level: level - 1, index: 2 * index + 1 }));
  const root = (size: number) => foldSubtrees(rootPlan(size).map(subtree));
  const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
  const checkpoint = (size: number) => signNote(checkpointText({ origin: log.name, size, root: root(size) }), [log]);
  const b64 = (hash: Buffer) => hash.toString('base64');
  const record = (index: number, size: number) => ({ index, leaf: leaves[index].toString('base64'), proof: assembleProof(inclusionProofPlan(index, size), subtree).map(b64) });

  it('verify a signed checkpoint, inclusion proofs of every leaf, and consistency with every earlier size', () => {
    const size = leaves.length;
    const answer = run({ vkey: log.verifierKey, checkpoint: checkpoint(size), records: leaves.map((_, i) => record(i, size)) });
    expect(answer).toEqual({ ok: true, out: `verified ${size} records in ${log.name} at size ${size}\n` });
    for (const older of [1, 2, 3, 8, 16, 17, 36]) {
      const proof = assembleProof(consistencyProofPlan(older, size), subtree).map(b64);
      expect(run({ vkey: log.verifierKey, checkpoint: checkpoint(size), records: [], older: { size: older, root: b64(root(older)), proof } })).toMatchObject({ ok: true });
    }
  });

  it('refuse what the ledger would refuse: another key, a changed leaf, a history that was rewritten', () => {
    const size = leaves.length;
    const stranger = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
    expect(run({ vkey: stranger.verifierKey, checkpoint: checkpoint(size), records: [] })).toMatchObject({ ok: false });
    expect(run({ vkey: log.verifierKey, checkpoint: checkpoint(size), records: [{ ...record(5, size), leaf: Buffer.from('leaf 5, changed').toString('base64') }] })).toMatchObject({ ok: false });
    const proof = assembleProof(consistencyProofPlan(20, size), subtree).map(b64);
    const rewritten = nodeHash(root(20), Buffer.alloc(32));
    expect(run({ vkey: log.verifierKey, checkpoint: checkpoint(size), records: [], older: { size: 20, root: b64(rewritten), proof } })).toMatchObject({ ok: false });
  });

  it("verify witnesses' cosignatures on a checkpoint with crypto/ed25519 over the specification's message, and refuse a missing or altered one", () => {
    const size = leaves.length;
    const signed = checkpoint(size);
    const { text, signatures } = parseNote(signed);
    const [w1, w2] = [cosignatureSigner('witness.example/w1', randomBytes(32)), cosignatureSigner('witness.example/w2', randomBytes(32))];
    const cosigned = signNote(text, [], [...signatures, w1.cosign(text, 1700000000), w2.cosign(text, 1700000007)]);
    const answer = run({ vkey: log.verifierKey, checkpoint: cosigned, records: [], witnesses: [{ vkey: w1.verifierKey }, { vkey: w2.verifierKey }] });
    expect(answer).toEqual({ ok: true, out: `verified 0 records in ${log.name} at size ${size}\ncosigned by witness.example/w1 at 1700000000\ncosigned by witness.example/w2 at 1700000007\n` });
    // Without the witnesses listed, the input of the earlier cases still reads as it did.
    expect(run({ vkey: log.verifierKey, checkpoint: cosigned, records: [] })).toEqual({ ok: true, out: `verified 0 records in ${log.name} at size ${size}\n` });
    const onlyW1 = signNote(text, [], [...signatures, w1.cosign(text, 1700000000)]);
    expect(run({ vkey: log.verifierKey, checkpoint: onlyW1, records: [], witnesses: [{ vkey: w2.verifierKey }] })).toMatchObject({ ok: false, out: expect.stringContaining('no cosignature') });
    const retimed = w1.cosign(text, 1700000000);
    retimed.signature.writeBigUInt64BE(1700000001n);
    expect(run({ vkey: log.verifierKey, checkpoint: signNote(text, [], [...signatures, retimed]), records: [], witnesses: [{ vkey: w1.verifierKey }] })).toMatchObject({
      ok: false,
      out: expect.stringContaining('does not verify'),
    });
  });

  it("read the tree from hash tiles with tlog's own tile reader: its root and proofs are the log's, and a changed hash is refused", () => {
    const tiledLeaves = Array.from({ length: 300 }, (_, i) => Buffer.from(`tiled ${i}`));
    const many = tiledLeaves.map(leafHash);
    const node = ({ level, index }: Subtree): Buffer => (level === 0 ? many[index] : nodeHash(node({ level: level - 1, index: 2 * index }), node({ level: level - 1, index: 2 * index + 1 })));
    const size = many.length;
    const signed = signNote(checkpointText({ origin: log.name, size, root: foldSubtrees(rootPlan(size).map(node)) }), [log]);
    const tiles: Record<string, string> = {};
    for (const { level, fullTiles, partialWidth } of tilesForSize(size)) {
      const widths = [...Array.from({ length: fullTiles }, () => 256), ...(partialWidth > 0 ? [partialWidth] : [])];
      widths.forEach((width, index) => {
        const span = tileSpan({ level, index, width });
        const hashes = Array.from({ length: span.end - span.start }, (_, i) => node({ level: span.level, index: span.start + i }));
        tiles[tilePath({ level, index, width })] = Buffer.concat(hashes).toString('base64');
      });
    }
    const records = [0, 255, 256, 299].map((index) => ({ index, leaf: tiledLeaves[index].toString('base64'), proof: assembleProof(inclusionProofPlan(index, size), node).map(b64) }));
    const input = { vkey: log.verifierKey, checkpoint: signed, records, tiles };
    expect(run(input)).toEqual({ ok: true, out: `verified 4 records in ${log.name} at size ${size}\n` });
    const changed = Buffer.from(tiles['tile/0/001.p/44'], 'base64');
    changed[0] ^= 1;
    expect(run({ ...input, tiles: { ...tiles, 'tile/0/001.p/44': changed.toString('base64') } })).toMatchObject({ ok: false, out: expect.stringContaining('tiles') });
  });
});
