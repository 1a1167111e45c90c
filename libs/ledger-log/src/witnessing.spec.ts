import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { newEvent } from '@ledger/event-store/testing';
import { WitnessState, addCheckpoint, cosignatureSigner, noteVerifier } from '@ledger/transparency';
import { issueCheckpoint } from './checkpoints';
import { logIdentity } from './log-identity';
import { witnessCheckpoint } from './witnessing';

/**
 * The log's side of witnessing against the witness's own decision (the pure
 * add-checkpoint of libs/transparency, answering through a fetch), over a
 * real embedded store: cosignatures kept, races with another process of the
 * log resolved by the witness's consistency check, forks refused.
 */
describe('witnessCheckpoint', () => {
  const identity = logIdentity({ origin: 'ledger.test/consent-ledger', signingKey: randomBytes(32) });
  const cosigner = cosignatureSigner('auditor.test/w1', randomBytes(32));
  const witness = { url: 'http://witness.test', verifierKey: cosigner.verifierKey };
  let state: WitnessState | null = null;
  const fetchFn = (async (_url: string, init: { body: string }) => {
    const answer = addCheckpoint(state, init.body, { logVerifier: noteVerifier(identity.verifierKey), cosigner, now: 1_795_800_000 });
    if (answer.status === 200) state = answer.newState;
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': answer.contentType } });
  }) as unknown as typeof fetch;

  const stores: SqliteEventStore[] = [];
  const ledger = async (events: number) => {
    const store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'ledger-witnessing-')), 'ledger.sqlite'));
    stores.push(store);
    for (let i = 0; i < events; i += 1) await store.append(`s-${i}`, [newEvent()], 'no_stream');
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('has each checkpoint cosigned from the last, and a witness ahead of this process (another one was first) asked again with the latest checkpoint', async () => {
    const store = await ledger(5);
    const first = await issueCheckpoint(store.log, identity, 1);
    expect(await witnessCheckpoint(store.log, first, witness, fetchFn)).toMatchObject({ outcome: 'cosigned', size: 5 });
    expect((await store.log.cosignatures(5)).map((c) => c.witness)).toEqual([cosigner.verifierKey]);
    await store.append('s-more', [newEvent(), newEvent()], 'no_stream');
    const second = await issueCheckpoint(store.log, identity, 2);
    await store.append('s-later', [newEvent()], 'no_stream');
    const third = await issueCheckpoint(store.log, identity, 3);
    // Another process cosigned the third first, its cosignature not kept here yet: this one sends the second.
    state = { origin: identity.origin, size: third.size, root: third.root };
    expect(await witnessCheckpoint(store.log, { ...second }, { ...witness }, fetchFn)).toMatchObject({ outcome: 'cosigned', size: third.size });
  });

  it('has a fork of what the witness cosigned refused, whether its tree is smaller or larger than the witnessed one', async () => {
    const smaller = await ledger(3);
    expect(await witnessCheckpoint(smaller.log, await issueCheckpoint(smaller.log, identity, 4), witness, fetchFn)).toMatchObject({ outcome: 'conflict' });
    const larger = await ledger(12);
    expect(await witnessCheckpoint(larger.log, await issueCheckpoint(larger.log, identity, 5), witness, fetchFn)).toMatchObject({ outcome: 'refused', status: 422 });
    expect(state?.size).toBe(8);
  });
});
