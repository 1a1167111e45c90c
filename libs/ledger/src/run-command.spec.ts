import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { TIME_ORDERED_ID, instantOfTimeOrderedId } from '@ledger/platform/testing';
import { COMMAND_ATTEMPTS, CONCURRENT_CHANGE, runCommand } from './run-command';

// Integration, on the real embedded store: the guard is the store's, and the path's job is to use it on every stream a decision read.
describe('runCommand, the one command path', () => {
  let dir: string;
  let store: SqliteEventStore;
  const context = { tenantId: 't1', actor: 'test', correlationId: 'c', now: 1_000 };
  const fact = (type: string, data: Record<string, unknown> = {}) => ({ type, data });
  const seed = (stream: string, type: string) => store.append(stream, [{ id: randomUUID(), ...fact(type), metadata: { correlationId: 'c', recordedAt: 1, schemaVersion: 1 } }], 'any');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-command-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends what the decision records at the revision read, and answers its position', async () => {
    await seed('consent', 'Granted');
    const { result, position } = await runCommand(store, context, async (reads) => {
      const consent = await reads.events('consent');
      const access = await reads.events('access');
      return { record: { streamId: 'access', facts: [fact('Decided', { on: consent.length, before: access.length })] }, answer: 'authorized' };
    });
    expect(result).toBe('authorized');
    const [decided] = await store.readStream('access');
    expect(decided).toMatchObject({ type: 'Decided', data: { on: 1, before: 0 }, position, metadata: { tenantId: 't1', actor: 'test', recordedAt: 1_000 } });
  });

  it("stores a fact under a time-ordered id of the command's instant, or under the id its decision fixed (decision 0082)", async () => {
    const fixed = randomUUID();
    await runCommand(store, context, async (reads) => {
      await reads.events('access');
      return { record: { streamId: 'access', facts: [fact('Decided'), { ...fact('Noted'), id: fixed }] }, answer: null };
    });
    const [decided, noted] = await store.readStream('access');
    expect(decided.id).toMatch(TIME_ORDERED_ID);
    expect(instantOfTimeOrderedId(decided.id)).toBe(context.now);
    expect(noted.id).toBe(fixed);
  });

  it('decides again when a stream it only read moved before the append, and records the decision taken on the new facts', async () => {
    await seed('consent', 'Granted');
    const seen: number[] = [];
    const { result } = await runCommand(store, context, async (reads) => {
      const consent = await reads.events('consent');
      await reads.events('access');
      seen.push(consent.length);
      // A revocation lands between the read and the append, once.
      if (seen.length === 1) await seed('consent', 'Revoked');
      const revoked = consent.some((e) => e.type === 'Revoked');
      return { record: { streamId: 'access', facts: [fact('Decided', { revoked })] }, answer: revoked ? 'denied' : 'authorized' };
    });
    expect(seen).toEqual([1, 2]);
    expect(result).toBe('denied');
    expect((await store.readStream('access')).map((e) => e.data)).toEqual([{ revoked: true }]);
  });

  it('answers without recording when the decision records nothing', async () => {
    const outcome = await runCommand(store, context, async (reads) => ({ answer: (await reads.events('access')).length, position: null }));
    expect(outcome).toEqual({ result: 0, position: null });
    expect(await store.headPosition()).toBe(0);
  });

  it(`gives up after ${COMMAND_ATTEMPTS} attempts that all lost the race, with the one conflict code, having recorded nothing`, async () => {
    let attempts = 0;
    const losing = runCommand(store, context, async (reads) => {
      attempts += 1;
      await reads.events('consent');
      await reads.events('access');
      await seed('consent', 'Changed');
      return { record: { streamId: 'access', facts: [fact('Decided')] }, answer: null };
    });
    await expect(losing).rejects.toMatchObject({ kind: 'conflict', code: CONCURRENT_CHANGE });
    expect(attempts).toBe(COMMAND_ATTEMPTS);
    expect(await store.readStream('access')).toEqual([]);
  });

  it('allows the attempts a command asks for, then gives up the same way', async () => {
    let attempts = 0;
    const losing = runCommand(
      store,
      context,
      async (reads) => {
        attempts += 1;
        await reads.events('template');
        await seed('template', 'Published');
        return { record: { streamId: 'template', facts: [fact('Published')] }, answer: null };
      },
      { attempts: COMMAND_ATTEMPTS + 2 },
    );
    await expect(losing).rejects.toMatchObject({ code: CONCURRENT_CHANGE });
    expect(attempts).toBe(COMMAND_ATTEMPTS + 2);
  });

  it('takes a stream read just before as the first attempt\'s read, and reads it again once it is found to have moved', async () => {
    const readBefore = await store.readStream('consent');
    await seed('consent', 'Granted');
    const seen: number[] = [];
    await runCommand(
      store,
      context,
      async (reads) => {
        seen.push((await reads.events('consent')).length);
        return { record: { streamId: 'consent', facts: [fact('Granted')] }, answer: null };
      },
      { alreadyRead: new Map([['consent', readBefore]]) },
    );
    // The first attempt decided on the empty stream read before, its append at no_stream was refused, the second read the grant.
    expect(seen).toEqual([0, 1]);
    expect((await store.readStream('consent')).map((e) => e.revision)).toEqual([0, 1]);
  });

  it('refuses to append to a stream the decision did not read: its expected revision would be a guess', async () => {
    await expect(runCommand(store, context, () => ({ record: { streamId: 'access', facts: [fact('Decided')] }, answer: null }))).rejects.toThrow('without having read it');
  });
});
