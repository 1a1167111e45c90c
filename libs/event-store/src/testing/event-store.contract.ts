import { randomUUID } from 'node:crypto';
import {
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  WrongExpectedVersionError,
} from '../event-store.port';
import { computeEventHash, verifyStream } from '../integrity';

export interface OpenedStore {
  store: EventStore;
  dispose(): Promise<void>;
}

export interface ContractOptions {
  /**
   * Whether the store refuses an event id already recorded in another stream
   * or at another place. SQLite enforces it with a unique index; EventStoreDB
   * only recognises ids at the place an idempotent retry would find them.
   */
  refusesReusedIds: boolean;
}

/**
 * The behaviour every EventStore adapter shares, modelled on EventStoreDB.
 * Streams are named uniquely per run, and every check is relative to the
 * head position, so the suite can run against a shared server.
 */
export function describeEventStoreContract(
  name: string,
  open: () => Promise<OpenedStore>,
  options: ContractOptions = { refusesReusedIds: true },
): void {
  describe(`EventStore contract: ${name}`, () => {
    let opened: OpenedStore;
    let store: EventStore;
    const run = randomUUID().slice(0, 8);
    let streamCount = 0;
    const newStream = (label: string) => `contract-${run}-${label}-${++streamCount}`;

    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => {
      await opened.dispose();
    });

    const refusal = async (streamId: string, expected: ExpectedRevision) => {
      const error = await store.append(streamId, [newEvent()], expected).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      return error as WrongExpectedVersionError;
    };

    it('numbers revisions from 0 and positions increasing above 0', async () => {
      const stream = newStream('revisions');
      const first = await store.append(stream, [newEvent(), newEvent()], 'no_stream');
      const second = await store.append(stream, [newEvent()], 1);
      const events = await store.readStream(stream);
      expect(events.map((e) => e.revision)).toEqual([0, 1, 2]);
      expect(events[0].position).toBeGreaterThan(0);
      expect(events[1].position).toBeGreaterThan(events[0].position);
      expect(events[2].position).toBeGreaterThan(events[1].position);
      expect(first).toEqual({ nextRevision: 1, position: events[1].position });
      expect(second).toEqual({ nextRevision: 2, position: events[2].position });
      expect(await store.headPosition()).toBeGreaterThanOrEqual(events[2].position);
    });

    it('refuses an empty append', async () => {
      await expect(store.append(newStream('empty'), [], 'any')).rejects.toThrow(/at least one event/);
    });

    it('accepts no_stream only for a missing stream', async () => {
      const stream = newStream('no-stream');
      await expect(store.append(stream, [newEvent()], 'no_stream')).resolves.toMatchObject({ nextRevision: 0 });
      expect((await refusal(stream, 'no_stream')).actual).toBe(0);
    });

    it('accepts stream_exists only for an existing stream', async () => {
      const stream = newStream('exists');
      expect((await refusal(stream, 'stream_exists')).actual).toBe('no_stream');
      await store.append(stream, [newEvent()], 'no_stream');
      await expect(store.append(stream, [newEvent()], 'stream_exists')).resolves.toMatchObject({ nextRevision: 1 });
    });

    it('accepts any whether or not the stream exists', async () => {
      const stream = newStream('any');
      await expect(store.append(stream, [newEvent()], 'any')).resolves.toMatchObject({ nextRevision: 0 });
      await expect(store.append(stream, [newEvent()], 'any')).resolves.toMatchObject({ nextRevision: 1 });
    });

    it('accepts an exact revision only when it is the last one, reporting the actual revision', async () => {
      const stream = newStream('exact');
      expect((await refusal(stream, 0)).actual).toBe('no_stream');
      await store.append(stream, [newEvent(), newEvent()], 'no_stream');
      const behind = await refusal(stream, 0);
      expect(behind).toMatchObject({ streamId: stream, expected: 0, actual: 1 });
      expect((await refusal(stream, 5)).actual).toBe(1);
      await expect(store.append(stream, [newEvent()], 1)).resolves.toMatchObject({ nextRevision: 2 });
    });

    it.each<[string, ExpectedRevision]>([
      ['no_stream', 'no_stream'],
      ['an exact revision', 0],
      ['any', 'any'],
    ])('returns the original result when the same ids are retried with %s', async (_label, expected) => {
      const stream = newStream('retry');
      const setUp = typeof expected === 'number' ? await store.append(stream, [newEvent()], 'no_stream') : undefined;
      const batch = [newEvent(), newEvent()];
      const original = await store.append(stream, batch, expected);
      await expect(store.append(stream, batch, expected)).resolves.toEqual(original);
      expect(await store.readStream(stream)).toHaveLength(batch.length + (setUp ? 1 : 0));
    });

    if (options.refusesReusedIds) {
      it('refuses an event id already recorded in another stream or at another place', async () => {
        const stream = newStream('reused');
        const event = newEvent();
        await store.append(stream, [event, newEvent()], 'no_stream');
        await expect(store.append(newStream('reused-elsewhere'), [event], 'no_stream')).rejects.toThrow();
        await expect(store.append(stream, [event], 1)).rejects.toThrow();
        expect(await store.readStream(stream)).toHaveLength(2);
      });
    }

    describe('guarded by other streams the decision read', () => {
      /** A new stream holding `count` events: at revision count - 1, or missing for 0. */
      const streamOf = async (label: string, count: number) => {
        const stream = newStream(label);
        if (count > 0) await store.append(stream, Array.from({ length: count }, () => newEvent()), 'no_stream');
        return stream;
      };
      const guarded = (streamId: string, expectedRevision: ExpectedRevision) => ({ expect: [{ streamId, expectedRevision }] });

      it.each<[string, ExpectedRevision, number]>([
        ['an exact revision', 1, 2],
        ['no_stream', 'no_stream', 0],
        ['stream_exists', 'stream_exists', 1],
        ['any, on a missing stream', 'any', 0],
        ['any, on an existing stream', 'any', 2],
      ])('appends when the expected stream is where %s says, writing nothing to it', async (_label, expected, count) => {
        const read = await streamOf('guard-read', count);
        const written = newStream('guard-written');
        await expect(store.append(written, [newEvent()], 'no_stream', guarded(read, expected))).resolves.toMatchObject({ nextRevision: 0 });
        expect(await store.readStream(written)).toHaveLength(1);
        expect(await store.readStream(read)).toHaveLength(count);
      });

      it.each<[string, ExpectedRevision, number, number | 'no_stream']>([
        ['an exact revision, the stream moved on since', 0, 2, 1],
        ['an exact revision, the stream missing', 0, 0, 'no_stream'],
        ['no_stream, the stream created since', 'no_stream', 1, 0],
        ['stream_exists, the stream missing', 'stream_exists', 0, 'no_stream'],
      ])('refuses when the expected stream is not where %s, naming it and writing nothing', async (_label, expected, count, actual) => {
        const read = await streamOf('guard-read', count);
        const written = await streamOf('guard-written', 1);
        const head = await store.headPosition();
        const error = await store.append(written, [newEvent()], 0, guarded(read, expected)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(error).toMatchObject({ streamId: read, expected, actual });
        expect(await store.readStream(written)).toHaveLength(1);
        expect(await store.readStream(read)).toHaveLength(count);
        expect(await store.headPosition()).toBe(head);
      });

      it('names the first of several expected streams that moved', async () => {
        const [a, b, c] = await Promise.all(['guard-a', 'guard-b', 'guard-c'].map((label) => streamOf(label, 1)));
        await store.append(b, [newEvent()], 0);
        await store.append(c, [newEvent()], 0);
        const written = newStream('guard-written');
        const expectAt = (revisions: number[]) => ({
          expect: [a, b, c].map((streamId, i) => ({ streamId, expectedRevision: revisions[i] })),
        });
        await expect(store.append(written, [newEvent()], 'no_stream', expectAt([0, 0, 0]))).rejects.toMatchObject({
          streamId: b,
          expected: 0,
          actual: 1,
        });
        await expect(store.append(written, [newEvent()], 'no_stream', expectAt([0, 1, 0]))).rejects.toMatchObject({ streamId: c });
        expect(await store.readStream(written)).toEqual([]);
        await expect(store.append(written, [newEvent()], 'no_stream', expectAt([0, 1, 1]))).resolves.toMatchObject({ nextRevision: 0 });
      });

      it('judges the written stream before the streams it expects', async () => {
        const read = await streamOf('guard-read', 2);
        const written = await streamOf('guard-written', 2);
        await expect(store.append(written, [newEvent()], 0, guarded(read, 0))).rejects.toMatchObject({ streamId: written, actual: 1 });
      });

      it.each<[string, ExpectedRevision]>([
        ['no_stream', 'no_stream'],
        ['an exact revision', 0],
        ['any', 'any'],
      ])('returns the original result of a retry with %s even after an expected stream moved', async (_label, expected) => {
        const read = await streamOf('guard-read', 1);
        const written = await streamOf('guard-written', typeof expected === 'number' ? 1 : 0);
        const batch = [newEvent(), newEvent()];
        const original = await store.append(written, batch, expected, guarded(read, 0));
        await store.append(read, [newEvent()], 0);
        await expect(store.append(written, batch, expected, guarded(read, 0))).resolves.toEqual(original);
        expect(await store.readStream(written)).toHaveLength(batch.length + (typeof expected === 'number' ? 1 : 0));
      });

      it('refuses an expectation on the written stream itself, or on an empty stream id, writing nothing', async () => {
        const written = newStream('guard-self');
        await expect(store.append(written, [newEvent()], 'no_stream', guarded(written, 'no_stream'))).rejects.toThrow(TypeError);
        await expect(store.append(written, [newEvent()], 'no_stream', guarded('', 'any'))).rejects.toThrow(TypeError);
        expect(await store.readStream(written)).toEqual([]);
        await expect(store.append(written, [newEvent()], 'no_stream', { expect: [] })).resolves.toMatchObject({ nextRevision: 0 });
      });
    });

    it('reads a stream forwards and backwards from a revision, up to a count', async () => {
      const stream = newStream('read');
      await store.append(stream, [0, 1, 2, 3, 4].map(() => newEvent()), 'no_stream');
      const revisions = (events: RecordedEvent[]) => events.map((e) => e.revision);
      expect(revisions(await store.readStream(stream))).toEqual([0, 1, 2, 3, 4]);
      expect(revisions(await store.readStream(stream, { fromRevision: 2, maxCount: 2 }))).toEqual([2, 3]);
      expect(revisions(await store.readStream(stream, { direction: 'backwards' }))).toEqual([4, 3, 2, 1, 0]);
      expect(
        revisions(await store.readStream(stream, { direction: 'backwards', fromRevision: 3, maxCount: 2 })),
      ).toEqual([3, 2]);
      expect(await store.readStream(newStream('missing'))).toEqual([]);
    });

    it('reads all streams in global order after a position, up to a count', async () => {
      const head = await store.headPosition();
      const a = newStream('all-a');
      const b = newStream('all-b');
      await store.append(a, [newEvent()], 'no_stream');
      await store.append(b, [newEvent(), newEvent()], 'no_stream');
      await store.append(a, [newEvent()], 0);
      const mine = (events: RecordedEvent[]) => events.filter((e) => e.streamId === a || e.streamId === b);
      const all = mine(await store.readAll({ after: head }));
      expect(all.map((e) => [e.streamId, e.revision])).toEqual([
        [a, 0],
        [b, 0],
        [b, 1],
        [a, 1],
      ]);
      const positions = all.map((e) => e.position);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      const page = await store.readAll({ after: all[0].position, maxCount: 2 });
      expect(page.map((e) => e.position)).toEqual(positions.slice(1, 3));
    });

    it('lists the streams that begin with a prefix, each once, in byte order', async () => {
      const kind = newStream('listed');
      const prefix = `${kind}-`;
      const listed = [`${prefix}b`, `${prefix}a`, `${prefix}a-1`, `${prefix}B`, `${prefix}%_`];
      // Near misses: the kind without its dash, the characters just either side of the dash, a longer kind.
      const missed = [kind, `${kind},`, `${kind}.`, `${kind}x-a`];
      for (const streamId of [...listed, ...missed]) await store.append(streamId, [newEvent()], 'no_stream');
      await store.append(`${prefix}b`, [newEvent(), newEvent()], 0);
      // Byte order: upper case before lower, '-' (0x2d) before any letter.
      expect(await store.streamIds(prefix)).toEqual([`${prefix}%_`, `${prefix}B`, `${prefix}a`, `${prefix}a-1`, `${prefix}b`]);
      expect(await store.streamIds(`${prefix}a`)).toEqual([`${prefix}a`, `${prefix}a-1`]);
      expect(await store.streamIds(`${prefix}none`)).toEqual([]);
    });

    it.each([[''], ['consent-é'], ['ends-with-~'], ['line\nbreak']])('refuses a stream prefix it cannot list as a range of byte order (%j)', async (prefix) => {
      await expect(store.streamIds(prefix)).rejects.toThrow(TypeError);
    });

    it('delivers a subscription its catch-up, then live events, and ends on abort', async () => {
      const head = await store.headPosition();
      const stream = newStream('subscribe');
      await store.append(stream, [newEvent(), newEvent()], 'no_stream');
      const controller = new AbortController();
      const received: RecordedEvent[] = [];
      const consumed = (async () => {
        for await (const page of store.subscribeToAll({ after: head, signal: controller.signal })) {
          expect(page.length).toBeGreaterThan(0);
          for (const event of page) {
            if (event.streamId !== stream) continue;
            received.push(event);
            if (received.length === 2) await store.append(stream, [newEvent()], 1);
            if (received.length === 3) controller.abort();
          }
        }
      })();
      await withTimeout(consumed, 5_000, 'the subscription did not deliver three events and end');
      expect(received.map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('ends a waiting subscription when its signal aborts', async () => {
      const controller = new AbortController();
      const iterator = store.subscribeToAll({ after: await store.headPosition(), signal: controller.signal });
      const ended = (async () => {
        for await (const page of iterator) void page;
      })();
      setTimeout(() => controller.abort(), 50);
      await withTimeout(ended, 2_000, 'the subscription did not end after abort');
    });

    it('lets exactly one of several concurrent appends at the same expected revision win', async () => {
      const stream = newStream('race');
      await store.append(stream, [newEvent()], 'no_stream');
      const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map(() => store.append(stream, [newEvent()], 0)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
      }
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('accepts concurrent appends to different streams', async () => {
      const streams = Array.from({ length: 20 }, () => newStream('parallel'));
      const results = await Promise.all(streams.map((s) => store.append(s, [newEvent()], 'no_stream')));
      expect(results.every((r) => r.nextRevision === 0)).toBe(true);
      expect(new Set(results.map((r) => r.position)).size).toBe(streams.length);
    });

    it('chains every event to the previous one with a verifiable hash', async () => {
      const stream = newStream('integrity');
      await store.append(stream, [newEvent(), newEvent()], 'no_stream');
      await store.append(stream, [newEvent()], 1);
      const events = await store.readStream(stream);
      expect(events[0].integrity.previousHash).toBeNull();
      expect(events[1].integrity.previousHash).toBe(events[0].integrity.hash);
      expect(events[2].integrity.previousHash).toBe(events[1].integrity.hash);
      expect(events[2].integrity.hash).toBe(computeEventHash(events[1].integrity.hash, events[2]));
      expect(verifyStream(events)).toBeNull();
    });

    it("keeps each follower's finished mark apart, only ever moving it forward, and outside the ledger", async () => {
      const follower = `contract-${run}-dispatcher`;
      const other = `${follower}-other`;
      const head = await store.headPosition();
      expect(await store.finishedMarks.of(follower)).toBe(0);
      await store.finishedMarks.advance(follower, 41);
      await store.finishedMarks.advance(other, 7);
      await store.finishedMarks.advance(follower, 12);
      expect(await store.finishedMarks.of(follower)).toBe(41);
      expect(await store.finishedMarks.of(other)).toBe(7);
      await Promise.all([50, 45, 60, 55].map((position) => store.finishedMarks.advance(follower, position)));
      expect(await store.finishedMarks.of(follower)).toBe(60);
      // Not an event: no follower of the ledger sees a mark move.
      expect(await store.headPosition()).toBe(head);
    });

    it('returns data and metadata exactly as appended', async () => {
      const stream = newStream('round-trip');
      const event: NewEvent = {
        id: randomUUID(),
        type: 'consent.granted',
        data: { nested: { list: [1, 'two', null, { deep: true }] }, text: 'ñandú €', zero: 0 },
        metadata: {
          tenantId: 'tenant-1',
          correlationId: randomUUID(),
          causationId: randomUUID(),
          actor: 'key-1',
          recordedAt: 1_763_800_000_123,
          schemaVersion: 3,
          idempotencyKey: 'idem-1',
          requestHash: 'abc123',
        },
      };
      await store.append(stream, [event], 'no_stream');
      const [recorded] = await store.readStream(stream);
      expect({ id: recorded.id, type: recorded.type, data: recorded.data, metadata: recorded.metadata }).toEqual(event);
      expect(recorded.streamId).toBe(stream);
      expect(typeof recorded.created).toBe('number');
    });
  });
}

/** Every event of the store, in position order, read page by page. */
export async function readEveryEvent(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after: events.at(-1)?.position ?? 0, maxCount: 1000 });
    if (page.length === 0) return events;
    events.push(...page);
  }
}

export function newEvent(type = 'contract.tested', data: unknown = { value: randomUUID() }): NewEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { correlationId: randomUUID(), recordedAt: 1_763_800_000_000, schemaVersion: 1 },
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
