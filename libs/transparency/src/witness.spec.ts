import { randomBytes } from 'node:crypto';
import { memoryTree } from '../test/tree';
import { checkpointText } from './checkpoint';
import { cosignatureSigner, cosignatureVerifier } from './cosignature';
import { EMPTY_ROOT } from './merkle';
import { ed25519Signer, noteVerifier, parseNote, signNote } from './signed-note';
import { AddCheckpointRequest, WitnessState, addCheckpoint, formatAddCheckpointRequest, parseAddCheckpointRequest } from './witness';

describe('a C2SP tlog-witness, add-checkpoint', () => {
  const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
  const cosigner = cosignatureSigner('witness.example/w1', randomBytes(32));
  const config = { logVerifier: noteVerifier(log.verifierKey), cosigner, now: 1700000000 };
  const leaves = Array.from({ length: 300 }, () => randomBytes(40));
  const tree = memoryTree(leaves);
  /** Another history of the log: the first 100 leaves, then others. */
  const fork = memoryTree([...leaves.slice(0, 100), ...Array.from({ length: 200 }, () => randomBytes(40))]);
  const note = (size: number, t = tree, signer = log) => signNote(checkpointText({ origin: log.name, size, root: t.root(size) }), [signer]);
  const request = (oldSize: number, size: number, t = tree): string =>
    formatAddCheckpointRequest({ oldSize, proof: oldSize === 0 || oldSize === size ? [] : t.consistency(oldSize, size), checkpointNote: note(size, t) });
  const stateAt = (size: number, t = tree): WitnessState => ({ origin: log.name, size, root: t.root(size) });

  it('write and read the request body: `old N`, the proof lines, a blank line, the checkpoint', () => {
    const proof = tree.consistency(5, 9);
    const body = formatAddCheckpointRequest({ oldSize: 5, proof, checkpointNote: note(9) });
    expect(body).toBe(`old 5\n${proof.map((h) => `${h.toString('base64')}\n`).join('')}\n${note(9)}`);
    expect(parseAddCheckpointRequest(body)).toEqual<AddCheckpointRequest>({ oldSize: 5, proof, checkpointNote: note(9) });
    expect(formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: note(9) })).toBe(`old 0\n\n${note(9)}`);
  });

  it('cosign a first checkpoint (old 0, no proof), and keep it as the state', () => {
    const answer = addCheckpoint(null, request(0, 17), config);
    expect(answer).toMatchObject({ status: 200, contentType: 'text/plain; charset=utf-8', newState: stateAt(17) });
    if (answer.status !== 200) throw new Error('not cosigned');
    // The body is the cosignature line; appended to the checkpoint it verifies under the witness's vkey, at `now`.
    expect(answer.body).toMatch(/^\u2014 witness\.example\/w1 [A-Za-z0-9+/=]+\n$/);
    const cosigned = parseNote(note(17) + answer.body);
    expect(cosignatureVerifier(cosigner.verifierKey).verify(cosigned.text, cosigned.signatures[1])).toEqual({ timestamp: 1700000000 });
  });

  it('cosign a consistent extension, and the same checkpoint again', () => {
    expect(addCheckpoint(stateAt(17), request(17, 300), config)).toMatchObject({ status: 200, newState: stateAt(300) });
    expect(addCheckpoint(stateAt(300), request(300, 300), config)).toMatchObject({ status: 200, newState: stateAt(300) });
    for (const [from, to] of [[1, 2], [2, 3], [64, 256], [255, 256], [256, 257], [100, 299]]) expect(addCheckpoint(stateAt(from), request(from, to), config).status).toBe(200);
  });

  it('answer 409 with the size it cosigned, as text/x.tlog.size, when `old` is another', () => {
    expect(addCheckpoint(stateAt(17), request(0, 300), config)).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '17\n' });
    expect(addCheckpoint(stateAt(17), request(16, 300), config)).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '17\n' });
    expect(addCheckpoint(null, request(17, 300), config)).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '0\n' });
  });

  it('refuse a fork with 422: a checkpoint of another history, with a proof that holds for that history', () => {
    expect(addCheckpoint(stateAt(150), request(150, 300, fork), config)).toMatchObject({ status: 422, body: expect.stringContaining('not consistent') });
    // Same size, another root.
    expect(addCheckpoint(stateAt(150), request(150, 150, fork), config)).toMatchObject({ status: 422 });
    // The right history with a proof from another size, or a tampered one.
    expect(addCheckpoint(stateAt(150), formatAddCheckpointRequest({ oldSize: 150, proof: tree.consistency(149, 300), checkpointNote: note(300) }), config).status).toBe(422);
    const tampered = tree.consistency(150, 300);
    tampered[1] = randomBytes(32);
    expect(addCheckpoint(stateAt(150), formatAddCheckpointRequest({ oldSize: 150, proof: tampered, checkpointNote: note(300) }), config).status).toBe(422);
    expect(addCheckpoint(stateAt(150), formatAddCheckpointRequest({ oldSize: 150, proof: [], checkpointNote: note(300) }), config).status).toBe(422);
  });

  it('refuse a rollback: 400 when old is past the checkpoint, 409 when old is the smaller size', () => {
    expect(addCheckpoint(stateAt(300), formatAddCheckpointRequest({ oldSize: 300, proof: [], checkpointNote: note(150) }), config).status).toBe(400);
    expect(addCheckpoint(stateAt(300), request(150, 150), config)).toMatchObject({ status: 409, body: '300\n' });
  });

  it('refuse with 422 a proof from the empty tree, and a size-0 checkpoint whose root is not the empty tree\'s', () => {
    expect(addCheckpoint(null, formatAddCheckpointRequest({ oldSize: 0, proof: [tree.root(1)], checkpointNote: note(17) }), config).status).toBe(422);
    const zero = (root: Buffer) => formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: signNote(checkpointText({ origin: log.name, size: 0, root }), [log]) });
    expect(addCheckpoint(null, zero(Buffer.alloc(32)), config).status).toBe(422);
    expect(addCheckpoint(null, zero(EMPTY_ROOT), config)).toMatchObject({ status: 200, newState: { origin: log.name, size: 0, root: EMPTY_ROOT } });
  });

  it("answer 404 for another log's origin and 403 for a checkpoint its key did not sign, or whose signature by it fails", () => {
    const other = ed25519Signer('other.example/log', randomBytes(32));
    const otherNote = signNote(checkpointText({ origin: other.name, size: 17, root: tree.root(17) }), [other]);
    expect(addCheckpoint(null, formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: otherNote }), config).status).toBe(404);
    const impostor = ed25519Signer(log.name, randomBytes(32));
    expect(addCheckpoint(null, formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: note(17, tree, impostor) }), config).status).toBe(403);
    const { text, signatures } = parseNote(note(17));
    const forged = signNote(text, [impostor], [{ ...signatures[0], signature: randomBytes(64) }]);
    expect(addCheckpoint(null, formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: forged }), config).status).toBe(403);
    // Signatures by keys the witness does not know ride along, ignored.
    expect(addCheckpoint(null, formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpointNote: signNote(text, [impostor], signatures) }), config).status).toBe(200);
  });

  it('answer 400 for a body that is not a request', () => {
    const good = request(17, 300);
    const [oldLine] = good.split('\n');
    for (const body of [
      '',
      good.replace(oldLine, 'old 017'),
      good.replace(oldLine, 'old -1'),
      good.replace(oldLine, 'old'),
      good.replace(oldLine, 'new 17'),
      good.replace(oldLine, `${oldLine}\nnot base64!`),
      good.replace(oldLine, `${oldLine}\n${Buffer.alloc(31).toString('base64')}`),
      `old 17\n${`${Buffer.alloc(32).toString('base64')}\n`.repeat(64)}\n${note(300)}`,
      `old 17\n\n${checkpointText({ origin: log.name, size: 300, root: tree.root(300) })}`,
      `old 17\n\n${signNote(`${log.name}\n300\n${tree.root(300).toString('base64')}\nextension\n`, [log])}`,
      good.slice(0, good.indexOf('\n\n')),
    ]) {
      expect([body, addCheckpoint(stateAt(17), body, config).status]).toEqual([body, 400]);
    }
  });

  it("refuse to decide with another log's state: the witness is misconfigured", () => {
    expect(() => addCheckpoint({ ...stateAt(17), origin: 'other.example/log' }, request(17, 300), config)).toThrow('not of');
  });
});
