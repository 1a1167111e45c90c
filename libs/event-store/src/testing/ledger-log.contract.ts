import { randomUUID } from 'node:crypto';
import { Subtree, assembleProof, inclusionProofPlan, leafHash, nodeHash, rootPlan, subtreesNeeded, verifyInclusion } from '@ledger/transparency';
import type { EventStore, LedgerLog } from '../event-store.port';
import { LEAF_VERSION, leafOfEvent } from '../ledger-leaf';
import { INTEGRATION_BATCH, LogBuildProgress } from '../log-tree';
import { newEvent, readEveryEvent } from './event-store.contract';
import type { OldEvent } from './ledger-before-the-tree';

export interface LedgerLogFixture {
  /** A new, empty store. */
  open(): Promise<{ store: EventStore; dispose(): Promise<void> }>;
  /**
   * A ledger written before the tree with these streams, and a way to open
   * it with the store (which builds the tree), entering `batch` events per
   * transaction and telling `onBuild` of each.
   */
  oldLedger(streams: ReadonlyArray<{ streamId: string; events: number }>): Promise<{
    events: OldEvent[];
    open(options: { batch?: number; onBuild?: (progress: LogBuildProgress) => void }): Promise<EventStore>;
    /** Inserts an event without a leaf, as a writer that knows nothing of the tree would. */
    insertWithoutLeaf(streamId: string, revision: number): Promise<void>;
    dispose(): Promise<void>;
  }>;
}

/** RFC 6962 MTH, straight from its definition: the reference the stores' subtrees are checked against. */
export function referenceRoot(leafHashes: readonly Buffer[]): Buffer {
  if (leafHashes.length === 1) return leafHashes[0];
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return nodeHash(referenceRoot(leafHashes.slice(0, k)), referenceRoot(leafHashes.slice(k)));
}

/** The ledger's Merkle tree as the SQLite and PostgreSQL stores keep it (decision 0058). */
export function describeLedgerLogContract(name: string, fixture: LedgerLogFixture): void {
  describe(`ledger log: ${name}`, () => {
    let store: EventStore;
    let log: LedgerLog;
    let dispose: () => Promise<void>;
    beforeEach(async () => {
      ({ store, dispose } = await fixture.open());
      log = store.log as LedgerLog;
    });
    afterEach(async () => {
      await dispose();
    });

    /** Appends in many groups: concurrent appends of one to three events to twenty streams. */
    const appendMany = async (appends: number) => {
      const streams = Array.from({ length: 20 }, () => `log-${randomUUID()}`);
      await Promise.all(
        Array.from({ length: appends }, (_, i) =>
          store.append(streams[i % streams.length], Array.from({ length: 1 + (i % 3) }, () => newEvent()), 'any'),
        ),
      );
    };

    const expectLeavesInPositionOrder = async () => {
      const events = await readEveryEvent(store);
      const leaves = await log.leaves(0, events.length + 1);
      expect(await log.integrate()).toBe(events.length);
      expect(await log.size()).toBe(events.length);
      expect(leaves.map((l) => l.leafIndex)).toEqual(events.map((_, i) => i));
      expect(leaves.map((l) => l.eventId)).toEqual(events.map((e) => e.id));
      leaves.forEach((leaf, i) => expect(leaf.leaf.equals(leafOfEvent(events[i]))).toBe(true));
      return leaves;
    };

    it('enters every appended event as the next leaf, in position order, with its leaf record', async () => {
      expect(await log.size()).toBe(0);
      await appendMany(300);
      // Stored with their events, hashed into the tree only when integrated.
      expect((await log.leaves(0, 1000)).length).toBeGreaterThan(300);
      expect(await log.size()).toBe(0);
      const leaves = await expectLeavesInPositionOrder();
      expect(leaves[0].leaf.toString('utf8').startsWith(`${LEAF_VERSION}\n`)).toBe(true);
    });

    it('answers every root and proof as the tree of its leaves computes it, across kept levels', async () => {
      await appendMany(300);
      await log.integrate();
      const leafHashes = (await log.leaves(0, await log.size())).map((l) => leafHash(l.leaf));
      expect(leafHashes.length).toBeGreaterThan(512);
      for (const size of [1, 2, 3, 255, 256, 257, 511, 512, 513, leafHashes.length]) {
        const [root] = await rootOf(log, size);
        expect(root.equals(referenceRoot(leafHashes.slice(0, size)))).toBe(true);
      }
      const size = leafHashes.length;
      const root = referenceRoot(leafHashes);
      for (const index of [0, 1, 255, 256, 300, size - 2, size - 1]) {
        const plan = inclusionProofPlan(index, size);
        const needed = subtreesNeeded(plan);
        const hashes = await log.subtreeHashes(needed);
        const byKey = new Map(needed.map((s, i) => [`${s.level}/${s.index}`, hashes[i]]));
        const proof = assembleProof(plan, (s: Subtree) => byKey.get(`${s.level}/${s.index}`) as Buffer);
        expect(() => verifyInclusion(index, size, leafHashes[index], proof, root)).not.toThrow();
      }
    });

    it('integrates a batch per transaction, each going on from the tree the one before left, however the calls overlap', async () => {
      const events = 2 * INTEGRATION_BATCH + 100;
      await store.append(`log-${randomUUID()}`, Array.from({ length: 1_000 }, () => newEvent()), 'no_stream');
      expect(await log.integrate()).toBe(1_000);
      await store.append(`log-${randomUUID()}`, Array.from({ length: events - 1_000 }, () => newEvent()), 'no_stream');
      expect(await Promise.all([log.integrate(), log.integrate(), log.integrate()])).toEqual([events, events, events]);
      const leafHashes = (await log.leaves(0, events)).map((l) => leafHash(l.leaf));
      for (const size of [1_000, 1_001, INTEGRATION_BATCH, INTEGRATION_BATCH + 1_000, 2 * INTEGRATION_BATCH + 1, events]) {
        const [root] = await rootOf(log, size);
        expect(root.equals(referenceRoot(leafHashes.slice(0, size)))).toBe(true);
      }
    });

    it('leaves no gap in leaf indexes when an append of a group is refused', async () => {
      const taken = newEvent();
      await store.append(`log-${randomUUID()}`, [taken], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append(`log-${randomUUID()}`, [newEvent()], 'no_stream'),
        store.append(`log-${randomUUID()}`, [newEvent(), { ...newEvent(), id: taken.id }], 'no_stream'),
        store.append(`log-${randomUUID()}`, [newEvent(), newEvent()], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      await expectLeavesInPositionOrder();
      await appendMany(10);
      await expectLeavesInPositionOrder();
    });

    it('keeps the first checkpoint of a tree size and serves the largest as the latest', async () => {
      const checkpoint = (size: number, note: string) => ({ size, root: Buffer.alloc(32, size), note, issuedAt: 1_763_800_000_000 + size });
      expect(await log.latestCheckpoint()).toBeUndefined();
      expect(await log.addCheckpoint(checkpoint(5, 'five\n'))).toBe(true);
      expect(await log.addCheckpoint(checkpoint(9, 'nine\n'))).toBe(true);
      expect(await log.addCheckpoint(checkpoint(5, 'another five\n'))).toBe(false);
      expect(await log.addCheckpoint(checkpoint(7, 'seven\n'))).toBe(true);
      expect(await log.latestCheckpoint()).toEqual(checkpoint(9, 'nine\n'));
      expect((await log.checkpoints()).map((c) => c.note)).toEqual(['five\n', 'seven\n', 'nine\n']);
    });

    it('keeps the first cosignature of a size by each witness, and knows what each last cosigned', async () => {
      const w1 = 'witness-one+01020304+AQ==';
      const w2 = 'witness-two+05060708+AQ==';
      expect(await log.lastCosignedSize(w1)).toBe(0);
      await log.addCosignature({ size: 5, witness: w1, line: 'first\n', cosignedAt: 100 });
      await log.addCosignature({ size: 5, witness: w1, line: 'second\n', cosignedAt: 101 });
      await log.addCosignature({ size: 5, witness: w2, line: 'other\n', cosignedAt: 102 });
      await log.addCosignature({ size: 8, witness: w2, line: 'later\n', cosignedAt: 103 });
      expect((await log.cosignatures(5)).map((c) => c.line)).toEqual(['first\n', 'other\n']);
      expect(await log.lastCosignedSize(w1)).toBe(5);
      expect(await log.lastCosignedSize(w2)).toBe(8);
    });
  });

  describe(`ledger log over a ledger written before it: ${name}`, () => {
    it('enters the old events in position order when the store opens, a batch per transaction, resumes where a crash left it, and integrates them', async () => {
      const old = await fixture.oldLedger([
        { streamId: `old-${randomUUID()}`, events: 40 },
        { streamId: `old-${randomUUID()}`, events: 25 },
        { streamId: `old-${randomUUID()}`, events: 7 },
      ]);
      try {
        // The first batch commits, then the process "crashes" before the second.
        await expect(
          old.open({
            batch: 30,
            onBuild: () => {
              throw new Error('crash after the first batch');
            },
          }),
        ).rejects.toThrow('crash after the first batch');
        const progress: LogBuildProgress[] = [];
        const store = await old.open({ batch: 30, onBuild: (p) => progress.push(p) });
        try {
          expect(progress).toEqual([
            { entered: 30, remaining: 12 },
            { entered: 42, remaining: 0 },
          ]);
          const leaves = await store.log!.leaves(0, 100);
          expect(leaves.map((l) => l.eventId)).toEqual(old.events.map((e) => e.id));
          expect(await store.log!.size()).toBe(leaves.length);
          const events = await readEveryEvent(store);
          leaves.forEach((leaf, i) => expect(leaf.leaf.equals(leafOfEvent(events[i]))).toBe(true));
          const [root] = await rootOf(store.log!, leaves.length);
          expect(root.equals(referenceRoot(leaves.map((l) => leafHash(l.leaf))))).toBe(true);
        } finally {
          await store.close();
        }
        // Built: opening again enters nothing.
        const again: LogBuildProgress[] = [];
        const reopened = await old.open({ batch: 30, onBuild: (p) => again.push(p) });
        await reopened.close();
        expect(again).toEqual([]);
      } finally {
        await old.dispose();
      }
    });

    it('has an append enter every event without a leaf before its own, so leaves stay in position order', async () => {
      const streamId = `old-${randomUUID()}`;
      const old = await fixture.oldLedger([{ streamId, events: 3 }]);
      try {
        const store = await old.open({});
        try {
          await store.append(`new-${randomUUID()}`, [newEvent()], 'no_stream');
          await old.insertWithoutLeaf(streamId, 3);
          await store.append(`new-${randomUUID()}`, [newEvent()], 'no_stream');
          const events = await readEveryEvent(store);
          const leaves = await store.log!.leaves(0, 100);
          expect(events).toHaveLength(6);
          expect(leaves.map((l) => l.eventId)).toEqual(events.map((e) => e.id));
        } finally {
          await store.close();
        }
      } finally {
        await old.dispose();
      }
    });
  });
}

/** The root of the tree's first `size` leaves, from the log's subtree hashes. */
export async function rootOf(log: LedgerLog, size: number): Promise<Buffer[]> {
  const plan = rootPlan(size);
  const hashes = await log.subtreeHashes(plan);
  return assembleProof([plan], (s) => hashes[plan.findIndex((p) => p.level === s.level && p.index === s.index)]);
}
