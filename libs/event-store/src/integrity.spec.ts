import { createHash } from 'node:crypto';
import type { RecordedEvent } from './event-store.port';
import { computeEventHash, hashEventText, storedJson, verifyStream } from './integrity';

describe('storedJson', () => {
  it('is JSON.stringify, member order as inserted, with null for undefined', () => {
    expect(storedJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":"x"}}',
    );
    expect(storedJson(undefined)).toBe('null');
  });

  it('reads back to the same text', () => {
    const written = {
      at: new Date(0),
      gone: undefined,
      list: [undefined, 1],
      text: 'ñ"\n\u2028\ud800',
      '2': 'int-like',
      big: 1e21,
    };
    const text = storedJson(written);
    expect(storedJson(JSON.parse(text))).toBe(text);
  });
});

describe('computeEventHash', () => {
  const content = {
    streamId: 's',
    revision: 0,
    id: 'e1',
    type: 't',
    data: { k: 1 },
    metadata: { correlationId: 'c', recordedAt: 1, schemaVersion: 1 },
  };
  const envelope = '"s"\n0\n"e1"\n"t"\n{"k":1}\n{"correlationId":"c","recordedAt":1,"schemaVersion":1}';
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('hashes the previous hash, a newline and the documented envelope', () => {
    expect(computeEventHash(null, content)).toBe(sha256(`\n${envelope}`));
    expect(computeEventHash('abc', content)).toBe(sha256(`abc\n${envelope}`));
  });

  it('is hashEventText over the JSON.stringify text of data and metadata', () => {
    const metadata = '{"correlationId":"c","recordedAt":1,"schemaVersion":1}';
    const text = hashEventText('abc', 's', 0, 'e1', 't', '{"k":1}', metadata);
    expect(computeEventHash('abc', content)).toBe(text);
  });

  it('writes the string fields as JSON string literals, so no field holds a raw line feed', () => {
    const odd = { ...content, streamId: 'a\nb', id: 'q"\\', type: 'ñ\u0001' };
    expect(computeEventHash(null, odd)).toBe(
      sha256('\n"a\\nb"\n0\n"q\\"\\\\"\n"ñ\\u0001"\n{"k":1}\n{"correlationId":"c","recordedAt":1,"schemaVersion":1}'),
    );
  });

  it('depends on member order: the chain covers the stored text', () => {
    const reordered = { ...content, metadata: { schemaVersion: 1, recordedAt: 1, correlationId: 'c' } };
    expect(computeEventHash(null, reordered)).not.toBe(computeEventHash(null, content));
  });

  it('is the same for the event as written and as read back', () => {
    const written = { ...content, data: { at: new Date(0), gone: undefined, list: [undefined, 1], text: 'ñ"\n' } };
    const readBack = { ...written, data: JSON.parse(JSON.stringify(written.data)) as unknown };
    expect(computeEventHash('abc', readBack)).toBe(computeEventHash('abc', written));
  });

  it('ignores fields outside the covered content', () => {
    const recorded = { ...content, position: 9, created: 5, integrity: { hash: 'x', previousHash: null } };
    expect(computeEventHash(null, recorded)).toBe(computeEventHash(null, content));
  });
});

describe('verifyStream', () => {
  function chain(count: number, stream = 'consent-1'): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    let previousHash: string | null = null;
    for (let revision = 0; revision < count; revision += 1) {
      const content = {
        streamId: stream,
        revision,
        id: `event-${revision}`,
        type: 'consent.granted',
        data: { n: revision },
        metadata: { correlationId: 'c', recordedAt: 1_000 + revision, schemaVersion: 1 },
      };
      const hash = computeEventHash(previousHash, content);
      events.push({ ...content, position: revision + 1, created: 0, integrity: { hash, previousHash } });
      previousHash = hash;
    }
    return events;
  }

  it('accepts an intact chain and an empty stream', () => {
    expect(verifyStream(chain(4))).toBeNull();
    expect(verifyStream([])).toBeNull();
  });

  it('reports an edited event where the edit is', () => {
    const events = chain(4);
    events[2] = { ...events[2], data: { n: 99 } };
    expect(verifyStream(events)).toEqual({
      stream: 'consent-1',
      revision: 2,
      reason: 'hash',
      expected: computeEventHash(events[1].integrity.hash, events[2]),
      found: events[2].integrity.hash,
    });
  });

  it('reports edited metadata', () => {
    const events = chain(3);
    events[1] = { ...events[1], metadata: { ...events[1].metadata, actor: 'someone-else' } };
    expect(verifyStream(events)).toMatchObject({ revision: 1, reason: 'hash' });
  });

  it('reports an event removed from the middle at the first event after the gap', () => {
    const events = chain(4);
    expect(verifyStream([events[0], events[1], events[3]])).toMatchObject({
      revision: 3,
      reason: 'revision',
      expected: '2',
      found: '3',
    });
  });

  it('reports a removed event even when later revisions were renumbered', () => {
    const events = chain(4);
    const renumbered = [events[0], { ...events[2], revision: 1 }, { ...events[3], revision: 2 }];
    expect(verifyStream(renumbered)).toEqual({
      stream: 'consent-1',
      revision: 1,
      reason: 'previous_hash',
      expected: events[0].integrity.hash,
      found: events[1].integrity.hash,
    });
  });

  it('reports a stream whose first event was removed', () => {
    expect(verifyStream(chain(3).slice(1))).toMatchObject({ revision: 1, reason: 'revision' });
  });

  it('reports a hash recomputed without its link', () => {
    const events = chain(3);
    const relinked = { ...events[2], integrity: { previousHash: null, hash: computeEventHash(null, events[2]) } };
    expect(verifyStream([events[0], events[1], relinked])).toMatchObject({
      revision: 2,
      reason: 'previous_hash',
      expected: events[1].integrity.hash,
      found: null,
    });
  });
});
