import type { LedgerLog, RecordedEvent } from '@ledger/event-store';
import { leafOfEvent } from '@ledger/event-store';
import { Checkpoint, CompactRange, NoteError, NoteVerifier, leafHash, openNote, parseCheckpoint } from '@ledger/transparency';

/**
 * `ledger audit verify`'s check of the Merkle tree (decision 0058): the
 * tree is rebuilt from the events as stored, in position order, and must
 * match what the log kept and every checkpoint an auditor holds. A checkpoint
 * commits to the first `size` leaves; the rebuilt tree's root at that size
 * must be the checkpoint's root, which is what a consistency proof from that
 * checkpoint would establish, so one pass checks every checkpoint at once.
 */

/** Why the rebuilt tree is not the one the log or a checkpoint states. */
export type LogMismatchReason =
  /** No event holds this leaf any more: an event was removed. */
  | 'leaf_missing'
  /** The leaf is another event's than the one at this place in position order: an event was inserted or moved. */
  | 'leaf_order'
  /** The event no longer makes the leaf stored for it: the event was rewritten. */
  | 'leaf_differs'
  /** A checkpoint's root is not the rebuilt tree's at its size: the leaves below it were rewritten (the first leaf that can differ is given). */
  | 'checkpoint_root'
  /** A checkpoint has more leaves than the rebuilt tree: the ledger's tail was removed. */
  | 'truncated'
  /** The event was entered after a checkpoint issued later than the time it states: it was recorded with a past time. */
  | 'backdated'
  /** A checkpoint the log kept is not signed by the log's keys (its leaf index is its size): it was written into the database. */
  | 'checkpoint_unsigned';

export interface LogMismatch {
  leafIndex: number;
  reason: LogMismatchReason;
}

export interface LogVerification {
  /** The rebuilt tree's size and root (base64). */
  size: number;
  root: string;
  /** Checkpoints compared: the log's own and those supplied. */
  checkpointsChecked: number;
  /** The mismatch with the lowest leaf index, or null. */
  firstMismatch: LogMismatch | null;
}

/** A checkpoint to compare, and the time it was issued when the log kept it (for backdating). */
export interface HeldCheckpoint {
  size: number;
  root: Buffer;
  issuedAt?: number;
}

/**
 * How much earlier than a checkpoint's issue an event entered after it may
 * say it was recorded: the time between deciding and committing, and the
 * clocks of several processes, fit well within it.
 */
export const RECORDED_AT_ALLOWANCE_MS = 60_000;

/** Opens a checkpoint note with the log's verifiers; a NoteError says why it is not one of this log's. */
export function openCheckpoint(note: string, origin: string, verifiers: readonly NoteVerifier[]): Checkpoint {
  const checkpoint = parseCheckpoint(openNote(note, verifiers).text);
  if (checkpoint.origin !== origin) throw new NoteError(`the checkpoint is of ${checkpoint.origin}, not ${origin}`);
  return checkpoint;
}

/**
 * Rebuilds the tree page by page, fed the ledger's events in position order
 * (verifyLedger's `onPage`), then `finish` reports.
 */
export class LogAudit {
  private readonly range = CompactRange.empty();
  /** The first leaf found to differ from what was kept for it (or to break a rule), with its index. */
  private exact: LogMismatch | null = null;
  /** The first checkpoint the rebuilt tree disagrees with, and where the leaves stop being covered by one that agrees. */
  private disagreement: (LogMismatch & { size: number }) | null = null;
  /** Checkpoints by size, not yet reached by the rebuild. */
  private readonly pending: HeldCheckpoint[];
  /** The latest issue time of a checkpoint the rebuild has passed. */
  private passedIssuedAt = Number.NEGATIVE_INFINITY;
  private readonly checked: number;

  constructor(
    private readonly log: LedgerLog,
    checkpoints: readonly HeldCheckpoint[],
  ) {
    this.pending = [...checkpoints].sort((a, b) => a.size - b.size);
    this.checked = checkpoints.length;
  }

  /** The next page of events in position order. */
  async page(events: readonly RecordedEvent[]): Promise<void> {
    this.passCheckpoints();
    const first = this.range.size;
    const stored = new Map((await this.log.leaves(first, first + events.length)).map((l) => [l.leafIndex, l]));
    for (const event of events) {
      const leafIndex = this.range.size;
      const leaf = leafOfEvent(event);
      const kept = stored.get(leafIndex);
      if (kept === undefined) this.found(leafIndex, 'leaf_missing');
      else if (kept.eventId !== event.id) this.found(leafIndex, 'leaf_order');
      else if (!kept.leaf.equals(leaf)) this.found(leafIndex, 'leaf_differs');
      else if (event.metadata.recordedAt < this.passedIssuedAt - RECORDED_AT_ALLOWANCE_MS) this.found(leafIndex, 'backdated');
      this.range.append(leafHash(leaf));
      this.passCheckpoints();
    }
  }

  /** A checkpoint the log kept that its keys did not sign: compared with nothing, reported at its size. */
  unsigned(size: number): void {
    this.found(size, 'checkpoint_unsigned');
  }

  /** The verification, once every event was fed. */
  finish(): LogVerification {
    this.passCheckpoints();
    // Checkpoints of more leaves than the ledger holds now: its tail went.
    if (this.pending.length > 0) this.disagrees(this.range.size, 'truncated', this.pending[0].size);
    return { size: this.range.size, root: this.range.root().toString('base64'), checkpointsChecked: this.checked, firstMismatch: this.firstMismatch() };
  }

  /**
   * A leaf found to differ is exact; a checkpoint that disagrees only bounds
   * where (at or after the last one that agrees). A leaf found below the
   * disagreeing checkpoint's size explains it, and is reported instead.
   */
  private firstMismatch(): LogMismatch | null {
    const { exact, disagreement } = this;
    if (disagreement === null || (exact !== null && exact.leafIndex < disagreement.size)) return exact;
    return { leafIndex: disagreement.leafIndex, reason: disagreement.reason };
  }

  private passCheckpoints(): void {
    while (this.pending.length > 0 && this.pending[0].size <= this.range.size) {
      // Fed one event at a time, the rebuild stops at every size: a checkpoint is met at its own.
      const checkpoint = this.pending.shift() as HeldCheckpoint;
      if (this.range.root().equals(checkpoint.root)) this.lastMatchedSize = checkpoint.size;
      else this.disagrees(this.lastMatchedSize, 'checkpoint_root', checkpoint.size);
      if (checkpoint.issuedAt !== undefined) this.passedIssuedAt = Math.max(this.passedIssuedAt, checkpoint.issuedAt);
    }
  }

  /** The largest checkpoint size whose root matched: the leaves below it are as checkpointed. */
  private lastMatchedSize = 0;

  private found(leafIndex: number, reason: LogMismatchReason): void {
    if (this.exact === null || leafIndex < this.exact.leafIndex) this.exact = { leafIndex, reason };
  }

  private disagrees(leafIndex: number, reason: LogMismatchReason, size: number): void {
    this.disagreement ??= { leafIndex, reason, size };
  }
}
