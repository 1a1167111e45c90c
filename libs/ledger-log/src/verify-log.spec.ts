import { randomUUID } from 'node:crypto';
import { LedgerLog, LogLeaf, RecordedEvent, computeEventHash, leafOfEvent } from '@ledger/event-store';
import { CompactRange, leafHash } from '@ledger/transparency';
import { LogAudit } from './verify-log';

/** Events as a store reads them back, chained per stream. */
function eventsOf(count: number, recordedAt = (i: number) => 1_763_800_000_000 + i * 1000): RecordedEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const content = { streamId: `s-${i % 3}`, revision: Math.floor(i / 3), id: randomUUID(), type: 'Tested', data: { i }, metadata: { correlationId: 'c', recordedAt: recordedAt(i), schemaVersion: 1 } };
    return { ...content, position: i + 1, created: 0, integrity: { hash: computeEventHash(null, content), previousHash: null } };
  });
}

/** The leaves a log kept for these events (only `leaves` is read by the audit). */
function logOf(leaves: LogLeaf[]): LedgerLog {
  return { leaves: async (start: number, end: number) => leaves.filter((l) => l.leafIndex >= start && l.leafIndex < end) } as unknown as LedgerLog;
}

const keptFor = (events: RecordedEvent[]): LogLeaf[] => events.map((e, leafIndex) => ({ leafIndex, eventId: e.id, leaf: leafOfEvent(e) }));

function checkpointOf(events: RecordedEvent[], size: number, issuedAt?: number) {
  const range = CompactRange.empty();
  for (const event of events.slice(0, size)) range.append(leafHash(leafOfEvent(event)));
  return { size, root: range.root(), issuedAt };
}

async function audit(events: RecordedEvent[], kept: LogLeaf[], checkpoints: ReturnType<typeof checkpointOf>[]) {
  const logAudit = new LogAudit(logOf(kept), checkpoints);
  for (let at = 0; at < events.length; at += 4) await logAudit.page(events.slice(at, at + 4));
  return logAudit;
}

describe('LogAudit', () => {
  const events = eventsOf(20);

  it('finds nothing in a ledger as its leaves and checkpoints keep it, and counts the checkpoints compared', async () => {
    const result = (await audit(events, keptFor(events), [checkpointOf(events, 0), checkpointOf(events, 7), checkpointOf(events, 20)])).finish();
    expect(result).toEqual({ size: 20, root: checkpointOf(events, 20).root.toString('base64'), checkpointsChecked: 3, firstMismatch: null });
  });

  it('reports a removed event at its leaf, an inserted one where it went, a rewritten one at its leaf', async () => {
    // A store answers no leaf whose event is gone.
    const removed = [...events.slice(0, 5), ...events.slice(6)];
    const kept = keptFor(events).filter((l) => l.leafIndex !== 5);
    expect((await audit(removed, kept, [])).finish().firstMismatch).toEqual({ leafIndex: 5, reason: 'leaf_missing' });
    const [stranger] = eventsOf(1);
    const inserted = [...events.slice(0, 9), stranger, ...events.slice(9)];
    expect((await audit(inserted, keptFor(events), [])).finish().firstMismatch).toEqual({ leafIndex: 9, reason: 'leaf_order' });
    const rewritten = events.map((e, i) => (i === 12 ? { ...e, integrity: { ...e.integrity, hash: 'f'.repeat(64) } } : e));
    expect((await audit(rewritten, keptFor(events), [checkpointOf(events, 20)])).finish().firstMismatch).toEqual({ leafIndex: 12, reason: 'leaf_differs' });
  });

  it('reports leaves rewritten with their events against the checkpoint after the last one that still agrees, and a cut tail as truncated', async () => {
    const rewritten = events.map((e, i) => (i === 12 ? { ...e, integrity: { ...e.integrity, hash: 'f'.repeat(64) } } : e));
    const checkpoints = [checkpointOf(events, 7), checkpointOf(events, 10), checkpointOf(events, 15), checkpointOf(events, 20)];
    expect((await audit(rewritten, keptFor(rewritten), checkpoints)).finish().firstMismatch).toEqual({ leafIndex: 10, reason: 'checkpoint_root' });
    const cut = events.slice(0, 16);
    expect((await audit(cut, keptFor(cut), checkpoints)).finish().firstMismatch).toEqual({ leafIndex: 16, reason: 'truncated' });
  });

  it('reports an event entered after a checkpoint issued more than a minute later than its recordedAt', async () => {
    const issuedAt = 1_763_800_000_000 + 10 * 1000;
    const late = eventsOf(20, (i) => (i === 14 ? issuedAt - 61_000 : i === 13 ? issuedAt - 59_000 : 1_763_800_000_000 + i * 1000));
    expect((await audit(late, keptFor(late), [checkpointOf(late, 12, issuedAt)])).finish().firstMismatch).toEqual({ leafIndex: 14, reason: 'backdated' });
  });

  it('reports a kept checkpoint the log did not sign at its size', async () => {
    const logAudit = await audit(events, keptFor(events), []);
    logAudit.unsigned(11);
    expect(logAudit.finish().firstMismatch).toEqual({ leafIndex: 11, reason: 'checkpoint_unsigned' });
  });
});
