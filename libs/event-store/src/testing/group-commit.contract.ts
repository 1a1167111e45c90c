import { DuplicateEventIdError, EventStore, RecordedEvent, WrongExpectedVersionError } from '../event-store.port';
import { verifyStream } from '../integrity';
import type { GroupCommitStats } from '../pending-append';
import { runTestScript } from './child-processes';
import { newEvent, readEveryEvent } from './event-store.contract';
import { ACCESS_EVENT_TYPE } from './guarded-appends-in-child-process';

/** A store that commits concurrent appends in groups and counts them, and its subscriptions' reads (SQLite, PostgreSQL). */
export interface GroupCommitStore extends EventStore {
  stats(): GroupCommitStats;
}

/** Where a test's events are kept: `open` opens another store on it (another connection, a reopen). */
export interface GroupCommitStorage {
  open(): GroupCommitStore;
  /** Where a process of its own opens the same storage: a SQLite file or a postgres:// URL. */
  target: string;
  dispose(): Promise<void>;
}

/** Access decisions the cross-process test makes while another process revokes. */
const DECISIONS = 200;

/**
 * The group commit both embedded-style adapters share (decisions 0006 and
 * 0031): appends made together are committed in one transaction, one
 * refused append never fails the others, appends to one stream in one
 * group see each other (expected streams of guarded appends included),
 * a guarded append is judged under the write lock that other processes'
 * appends take too, and closing commits what is pending. Each test gets
 * fresh storage.
 */
export function describeGroupCommit(name: string, createStorage: () => Promise<GroupCommitStorage>): void {
  describe(`group commit: ${name}`, () => {
    let storage: GroupCommitStorage;
    let store: GroupCommitStore;
    beforeEach(async () => {
      storage = await createStorage();
      store = storage.open();
    });
    afterEach(async () => {
      await store.close();
      await storage.dispose();
    });

    it('commits appends made in the same turn in one transaction', async () => {
      const before = store.stats();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.append(`group-${i}`, [newEvent()], 'no_stream')),
      );
      const after = store.stats();
      expect(after.appends - before.appends).toBe(50);
      expect(after.transactions - before.transactions).toBe(1);
      expect(new Set(results.map((r) => r.position)).size).toBe(50);
    });

    it('rolls back a refused append alone and commits the rest of its group', async () => {
      await store.append('taken', [newEvent()], 'no_stream');
      const reused = newEvent();
      await store.append('holder', [reused], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append('ok-1', [newEvent()], 'no_stream'),
        store.append('taken', [newEvent()], 'no_stream'),
        store.append('partial', [newEvent(), reused], 'no_stream'),
        store.append('ok-2', [newEvent()], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
      expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ streamId: 'partial', eventId: reused.id });
      // The first event of the refused batch was inserted, then rolled back with its savepoint.
      expect(await store.readStream('partial')).toEqual([]);
      expect(await store.readStream('ok-2')).toHaveLength(1);
      expect(store.stats()).toMatchObject({ transactions: 3, slowPathGroups: 1 });
    });

    it('refuses a mismatching append on the fast path without redoing its group', async () => {
      await store.append('taken', [newEvent()], 'no_stream');
      const before = store.stats();
      const outcomes = await Promise.allSettled([
        store.append('fast-1', [newEvent()], 'no_stream'),
        store.append('taken', [newEvent()], 'no_stream'),
        store.append('taken', [newEvent()], 5),
        store.append('fast-2', [newEvent()], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
      expect(store.stats().transactions - before.transactions).toBe(1);
      expect(store.stats().slowPathGroups).toBe(before.slowPathGroups);
      expect(await store.readStream('taken')).toHaveLength(1);
    });

    it('lets appends to one stream in one group see each other', async () => {
      const retried = [newEvent()];
      const outcomes = await Promise.allSettled([
        store.append('same', [newEvent(), newEvent()], 'no_stream'),
        store.append('same', [newEvent()], 1),
        store.append('same', retried, 'stream_exists'),
        store.append('same', retried, 2),
        store.append('same', [newEvent()], 'no_stream'),
        store.append('same', [newEvent()], 2),
        store.append('same', [newEvent()], 'any'),
      ]);
      expect(store.stats().transactions).toBe(1);
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
      ]);
      const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.nextRevision : undefined));
      expect(values).toEqual([1, 2, 3, 3, undefined, undefined, 4]);
      expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({ actual: 3 });
      const events = await store.readStream('same');
      expect(events.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      expect(verifyStream(events)).toBeNull();
    });

    it('sees appends another connection committed between its groups', async () => {
      await store.append('shared', [newEvent()], 'no_stream');
      const other = storage.open();
      try {
        await other.append('shared', [newEvent()], 0);
        await other.append('other-only', [newEvent()], 'no_stream');
      } finally {
        await other.close();
      }
      await expect(store.append('shared', [newEvent()], 0)).rejects.toMatchObject({ actual: 1 });
      await expect(store.append('shared', [newEvent()], 1)).resolves.toMatchObject({ nextRevision: 2 });
      await expect(store.append('other-only', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(
        WrongExpectedVersionError,
      );
      expect(verifyStream(await store.readStream('shared'))).toBeNull();
    });

    it('reads what another connection committed after this one read the same streams', async () => {
      await store.append('shared', [newEvent()], 'no_stream');
      // Read first: where 'shared' ends, and that 'unwritten' and 'read-before' do not exist (what a cache would keep).
      expect(await store.readStream('shared', { fromRevision: 1 })).toEqual([]);
      expect(await store.readStream('unwritten')).toEqual([]);
      expect(await store.readStream('read-before')).toEqual([]);
      const other = storage.open();
      try {
        await other.append('shared', [newEvent()], 0);
        await other.append('unwritten', [newEvent()], 'no_stream');
        await other.append('read-before', [newEvent()], 'no_stream');
      } finally {
        await other.close();
      }
      expect((await store.readStream('shared', { fromRevision: 1 })).map((e) => e.revision)).toEqual([1]);
      expect(await store.readStream('unwritten')).toHaveLength(1);
      await expect(store.append('read-before', [newEvent()], 'no_stream')).rejects.toMatchObject({ actual: 0 });
      // Its own appends: a read from past the head it wrote finds nothing, a read from the head finds it.
      await store.append('shared', [newEvent()], 1);
      expect(await store.readStream('shared', { fromRevision: 3 })).toEqual([]);
      expect((await store.readStream('shared', { fromRevision: 2 })).map((e) => e.revision)).toEqual([2]);
    });

    it('refuses a guarded append whose expected stream an append earlier in its group moved, and commits the others', async () => {
      await store.append('consent', [newEvent()], 'no_stream');
      const before = store.stats();
      const outcomes = await Promise.allSettled([
        store.append('consent', [newEvent()], 0),
        store.append('access-stale', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 0 }] }),
        store.append('access-fresh', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 1 }] }),
        store.append('created', [newEvent()], 'no_stream'),
        store.append('access-unaware', [newEvent()], 'no_stream', { expect: [{ streamId: 'created', expectedRevision: 'no_stream' }] }),
        // A refused append moved nothing.
        store.append('access-after', [newEvent()], 'no_stream', { expect: [{ streamId: 'access-stale', expectedRevision: 'no_stream' }] }),
      ]);
      expect(store.stats().transactions - before.transactions).toBe(1);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ streamId: 'consent', expected: 0, actual: 1 });
      expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({ streamId: 'created', actual: 0 });
      expect(await store.readStream('access-stale')).toEqual([]);
      expect(await store.readStream('access-unaware')).toEqual([]);
      expect(await store.readStream('consent')).toHaveLength(2);
    });

    it('judges expected streams on the slow path as on the fast path', async () => {
      const reused = newEvent();
      await store.append('holder', [reused], 'no_stream');
      await store.append('consent', [newEvent()], 'no_stream');
      const before = store.stats();
      const outcomes = await Promise.allSettled([
        store.append('consent', [newEvent()], 0),
        store.append('access-stale', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 0 }] }),
        store.append('partial', [newEvent(), reused], 'no_stream'),
        store.append('access-fresh', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 1 }] }),
      ]);
      expect(store.stats().slowPathGroups - before.slowPathGroups).toBe(1);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ streamId: 'consent', expected: 0, actual: 1 });
      expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream('access-stale')).toEqual([]);
      expect(await store.readStream('access-fresh')).toHaveLength(1);
    });

    it('sees an expected stream another connection moved between its groups', async () => {
      await store.append('consent', [newEvent()], 'no_stream');
      await store.append('access-1', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 0 }] });
      const other = storage.open();
      try {
        await other.append('consent', [newEvent()], 0);
      } finally {
        await other.close();
      }
      await expect(
        store.append('access-2', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 0 }] }),
      ).rejects.toMatchObject({ streamId: 'consent', actual: 1 });
      await expect(
        store.append('access-2', [newEvent()], 'no_stream', { expect: [{ streamId: 'consent', expectedRevision: 1 }] }),
      ).resolves.toMatchObject({ nextRevision: 0 });
    });

    it('judges the expectations an append was given, whatever the caller does with its array while the append is queued', async () => {
      await store.append('consent', [newEvent()], 'no_stream');
      const expectations = [{ streamId: 'consent', expectedRevision: 0 }];
      const appended = store.append('access', [newEvent()], 'no_stream', { expect: expectations });
      expectations[0].expectedRevision = 5;
      expectations.push({ streamId: 'missing', expectedRevision: 0 });
      await expect(appended).resolves.toMatchObject({ nextRevision: 0 });
    });

    it('records no decision on a stale read while another process moves the stream it read', async () => {
      await store.append('consent', [newEvent()], 'no_stream');
      const [revoking, authorizing] = await Promise.all([
        runTestScript('guarded-appends-in-child-process', [storage.target, 'revoke', 'consent'], 120_000),
        runTestScript('guarded-appends-in-child-process', [storage.target, 'authorize', 'consent', String(DECISIONS)], 120_000),
      ]);
      const { revocations } = JSON.parse(revoking) as { revocations: number };
      const { authorized, refused } = JSON.parse(authorizing) as { authorized: number; refused: number };
      // Positions are in commit order: the consent's revision when a decision committed is its last one below it.
      let consentRevision = -1;
      let decisions = 0;
      const stale: string[] = [];
      for (const event of await readEveryEvent(store)) {
        if (event.streamId === 'consent') consentRevision = event.revision;
        if (event.type !== ACCESS_EVENT_TYPE) continue;
        decisions += 1;
        const read = (event.data as { consentRevision: number }).consentRevision;
        if (read !== consentRevision) stale.push(`${event.streamId} at ${event.position}: read consent at ${read}, committed at ${consentRevision}`);
      }
      expect(consentRevision).toBe(revocations);
      expect(decisions).toBe(DECISIONS);
      expect(authorized).toBe(DECISIONS);
      expect(stale).toEqual([]);
      // The processes did race: some decisions were made on a read that a revocation made stale.
      expect(refused).toBeGreaterThan(0);
    }, 180_000);

    it('goes on from where a group redone on the slow path left its streams', async () => {
      const reused = newEvent();
      await store.append('holder-2', [reused], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append('undone', [newEvent()], 'no_stream'),
        store.append('undone', [newEvent(), reused], 0),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
      // The fast pass wrote 'undone' at revisions 0 and 1 before it was rolled back; only 0 was committed.
      await expect(store.append('undone', [newEvent()], 0)).resolves.toMatchObject({ nextRevision: 1 });
    });

    it('commits pending appends on close and refuses appends afterwards', async () => {
      const pending = store.append('closing', [newEvent()], 'no_stream');
      await store.close();
      await expect(pending).resolves.toMatchObject({ nextRevision: 0 });
      await expect(store.append('closing', [newEvent()], 0)).rejects.toThrow(/closed/);
      store = storage.open();
      expect(await store.readStream('closing')).toHaveLength(1);
    });

    it('keeps committed events, positions and chain across a reopen', async () => {
      await store.append('durable', [newEvent(), newEvent()], 'no_stream');
      const head = await store.headPosition();
      await store.close();
      store = storage.open();
      expect(await store.headPosition()).toBe(head);
      const next = await store.append('durable', [newEvent()], 1);
      expect(next).toEqual({ nextRevision: 2, position: head + 1 });
      expect(verifyStream(await store.readStream('durable'))).toBeNull();
    });

    it('hands a subscription what it has ready a page at a time, not event by event', async () => {
      const backlog = 300;
      await Promise.all(Array.from({ length: backlog }, (_, i) => store.append(`paged-${i}`, [newEvent()], 'no_stream')));
      const controller = new AbortController();
      const pages: Array<readonly RecordedEvent[]> = [];
      let received = 0;
      for await (const page of store.subscribeToAll({ signal: controller.signal })) {
        pages.push(page);
        received += page.length;
        if (received >= backlog) controller.abort();
      }
      // One page: the stores read 500 events at a time, and every one of these was committed before the subscription began.
      expect(pages).toHaveLength(1);
      expect(pages[0].map((event) => event.position)).toEqual((await store.readAll()).map((event) => event.position));
    });

    it('serves subscriptions that follow it together from one read per page, each every event once and in order', async () => {
      const subscriptions = 8;
      // Three pages of the stores' 500, then live events after every subscription has caught up.
      const backlog = 1_200;
      const live = 50;
      for (let i = 0; i < backlog / 100; i += 1) {
        await Promise.all(Array.from({ length: 100 }, (_, j) => store.append(`backlog-${i}-${j}`, [newEvent()], 'no_stream')));
      }
      const controller = new AbortController();
      const caughtUp: Array<() => void> = [];
      const seen = Array.from({ length: subscriptions }, () => [] as number[]);
      const following = seen.map((positions, index) =>
        (async () => {
          for await (const page of store.subscribeToAll({ signal: controller.signal })) {
            for (const event of page) {
              positions.push(event.position);
              if (positions.length === backlog) caughtUp[index]();
              if (positions.length === backlog + live) return;
            }
          }
        })(),
      );
      const before = store.stats().subscriptionReads;
      await Promise.all(seen.map((_, index) => new Promise<void>((resolve) => (caughtUp[index] = resolve))));
      // Each subscription alone would read the three pages: 24 reads.
      expect(store.stats().subscriptionReads - before).toBeLessThan(subscriptions);
      await Promise.all(Array.from({ length: live }, (_, i) => store.append(`live-${i}`, [newEvent()], 'no_stream')));
      await Promise.all(following);
      controller.abort();
      const everyPosition = (await store.readAll()).map((event) => event.position);
      expect(everyPosition).toHaveLength(backlog + live);
      for (const positions of seen) expect(positions).toEqual(everyPosition);
    });

    it('ends every subscription on close', async () => {
      const ended = (async () => {
        for await (const page of store.subscribeToAll()) void page;
      })();
      await new Promise((r) => setTimeout(r, 20));
      await store.close();
      await expect(ended).resolves.toBeUndefined();
    });
  });
}
