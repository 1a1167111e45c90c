import { randomBytes } from 'node:crypto';
import { memoryTree } from '../test/tree';
import { checkpointText } from './checkpoint';
import { cosignatureSigner } from './cosignature';
import { ed25519Signer, noteVerifier, signNote, signatureLine } from './signed-note';
import { WitnessState, addCheckpoint } from './witness';
import { requestCosignature } from './witness-client';

describe('asking a C2SP tlog-witness for a cosignature', () => {
  const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
  const cosigner = cosignatureSigner('witness.example/w1', randomBytes(32));
  const tree = memoryTree(Array.from({ length: 40 }, () => randomBytes(16)));
  const note = (size: number) => signNote(checkpointText({ origin: log.name, size, root: tree.root(size) }), [log]);
  const witness = { url: 'https://witness.example/w1/', verifierKey: cosigner.verifierKey };

  /** A witness in memory: addCheckpoint behind a fetch, recording what was asked. */
  function witnessFetch(state: WitnessState | null) {
    const asked: Array<{ url: string; method?: string; body: string }> = [];
    const fetchFn = (async (url: string, init: RequestInit) => {
      asked.push({ url, method: init.method, body: String(init.body) });
      const answer = addCheckpoint(state, String(init.body), { logVerifier: noteVerifier(log.verifierKey), cosigner, now: 1700000000 });
      if (answer.status === 200) state = answer.newState;
      return new Response(answer.body, { status: answer.status, headers: { 'content-type': answer.contentType } });
    }) as typeof fetch;
    return { fetchFn, asked, state: () => state };
  }
  const answering = (status: number, body: string, contentType = 'text/plain') => (async () => new Response(body, { status, headers: { 'content-type': contentType } })) as unknown as typeof fetch;

  it('posts the request to <prefix>/add-checkpoint and returns the cosignature, verified, with its time', async () => {
    const w = witnessFetch(null);
    const outcome = await requestCosignature(witness, { oldSize: 0, proof: [], checkpointNote: note(10) }, w.fetchFn);
    expect(outcome).toMatchObject({ outcome: 'cosigned', timestamp: 1700000000, signature: { name: cosigner.name, keyId: cosigner.keyId } });
    expect(w.asked).toEqual([{ url: 'https://witness.example/w1/add-checkpoint', method: 'POST', body: `old 0\n\n${note(10)}` }]);
    expect(await requestCosignature(witness, { oldSize: 10, proof: tree.consistency(10, 40), checkpointNote: note(40) }, w.fetchFn)).toMatchObject({ outcome: 'cosigned' });
    expect(w.state()?.size).toBe(40);
  });

  it("reports a conflict with the witness's size, and a refusal with its status and reason", async () => {
    const w = witnessFetch({ origin: log.name, size: 10, root: tree.root(10) });
    expect(await requestCosignature(witness, { oldSize: 0, proof: [], checkpointNote: note(40) }, w.fetchFn)).toEqual({ outcome: 'conflict', witnessSize: 10 });
    expect(await requestCosignature(witness, { oldSize: 10, proof: tree.consistency(9, 40), checkpointNote: note(40) }, w.fetchFn)).toEqual({
      outcome: 'refused',
      status: 422,
      reason: expect.stringContaining('not consistent'),
    });
  });

  it('refuses an answer that is not a valid cosignature by the witness: another key, a wrong checkpoint, garbage, a conflict without its size', async () => {
    const request = { oldSize: 0, proof: [], checkpointNote: note(10) };
    const text = checkpointText({ origin: log.name, size: 10, root: tree.root(10) });
    const stranger = cosignatureSigner(cosigner.name, randomBytes(32));
    const cases: Array<[typeof fetch, RegExp]> = [
      [answering(200, signatureLine(stranger.cosign(text, 1700000000))), /no cosignature by the witness's key/],
      [answering(200, signatureLine({ ...stranger.cosign(text, 1700000000), keyId: cosigner.keyId })), /does not verify/],
      [answering(200, signatureLine(cosigner.cosign(checkpointText({ origin: log.name, size: 11, root: tree.root(11) }), 1700000000))), /does not verify/],
      [answering(200, 'cosigned!\n'), /not a valid cosignature/],
      [answering(200, `\n${signatureLine(cosigner.cosign(text, 1700000000))}`), /not signature lines/],
      [answering(200, ''), /no cosignature/],
      [answering(409, '10\n'), /text\/x\.tlog\.size/],
      [answering(409, 'ten\n', 'text/x.tlog.size'), /text\/x\.tlog\.size/],
    ];
    for (const [fetchFn, reason] of cases) expect(await requestCosignature(witness, request, fetchFn)).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(reason) });
    expect(await requestCosignature(witness, request, answering(403, 'x'.repeat(2000)))).toEqual({ outcome: 'refused', status: 403, reason: 'x'.repeat(500) });
  });

  it('reports a witness it cannot reach, or that does not answer in time, as unreachable', async () => {
    const refused = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    expect(await requestCosignature(witness, { oldSize: 0, proof: [], checkpointNote: note(10) }, refused)).toEqual({ outcome: 'unreachable', reason: 'fetch failed' });
    const silent = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))) as unknown as typeof fetch;
    expect(await requestCosignature({ ...witness, timeoutMs: 50 }, { oldSize: 0, proof: [], checkpointNote: note(10) }, silent)).toMatchObject({ outcome: 'unreachable' });
  });

  it('throws before sending anything for a key that is not a cosigner vkey', async () => {
    const w = witnessFetch(null);
    await expect(requestCosignature({ ...witness, verifierKey: log.verifierKey }, { oldSize: 0, proof: [], checkpointNote: note(10) }, w.fetchFn)).rejects.toThrow('signature type 0x04');
    expect(w.asked).toEqual([]);
  });
});
