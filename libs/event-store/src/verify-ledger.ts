import { Clock, systemClock } from '@ledger/platform';
import type { EventStore, RecordedEvent } from './event-store.port';
import { ChainHead, IntegrityBreak, verifyLink } from './integrity';
import { readAllPages } from './read-all-pages';

/** What `audit verify` prints (README.md, "Operator CLI"). */
export interface LedgerVerification {
  intact: boolean;
  /** Streams checked: every stream, or the tenant's. */
  streams: number;
  /** Events checked. */
  events: number;
  /** The break with the lowest position, or null when every checked chain holds. */
  firstBreak: IntegrityBreak | null;
}

export interface VerifyLedgerProgress {
  /** Events read so far (with a tenant, including other tenants' events, which are read but not checked). */
  events: number;
  /** The position reached. */
  position: number;
  /** The head position when the verification started: where it ends. */
  head: number;
  ratePerSecond: number;
}

export interface VerifyLedgerOptions {
  /** Check only this tenant's streams. */
  tenantId?: string;
  /** Events per `readAll` page, and so at most held at once (1,000 by default). */
  pageSize?: number;
  /** Called every `progressEvery` events read (10,000 by default). */
  progress?: (progress: VerifyLedgerProgress) => void;
  progressEvery?: number;
  /** Times the progress rate; the system clock by default. */
  clock?: Clock;
  /**
   * Hears every page read, in position order, every tenant's events
   * included, before the next is read: another check made in the same pass
   * over the ledger (the Merkle tree's, `ledger audit verify`).
   */
  onPage?: (page: RecordedEvent[]) => Promise<void>;
}

const DEFAULT_PAGE_SIZE = 1_000;
const DEFAULT_PROGRESS_EVERY = 10_000;

/** What is kept per stream between pages: where its chain stands, and whether it is being checked. */
interface StreamEntry extends ChainHead {
  checked: boolean;
}

/**
 * Recomputes every chain in the store (docs/architecture.md, "Integrity") in
 * one pass over `readAll` in position order, a page at a time, so memory is one
 * page plus one small entry per stream (its last revision and stored hash),
 * never a whole stream. Each event is checked against its stream's entry with
 * the same rule as `verifyStream` (`verifyLink`): revision gap (including a
 * stream that does not start at revision 0), previous-hash link, content hash.
 * Reading in position order, the first break found is the one with the lowest
 * position.
 *
 * After a break the stream's entry moves on to the event's stored revision and
 * hash, as after an intact event, so the pass goes on to the end and the
 * counts are those of the whole ledger. It covers the events committed when
 * it starts (up to the head position read then); later appends are left to
 * the next run.
 *
 * Not detectable from chains alone: a stream's last events removed (no later
 * event links to them), or a whole stream removed.
 *
 * With `tenantId`, a stream is checked from its first event whose
 * metadata.tenantId is the tenant, and from then on every later event of it is
 * checked whatever its metadata says (so an edited tenantId on a later event
 * is a `hash` break, not an event skipped). The stream name is not used:
 * names are chosen by each module and not all carry the tenant (`apikey-<keyId>`
 * does not), and where they do it sits in the middle of a name built from
 * other ids, so parsing it would depend on every module's naming. The
 * metadata is part of the hashed content, so the attribution itself is
 * covered by the chain; only editing the tenantId of every one of a stream's
 * events to another tenant takes it out of this tenant's check, which a run
 * without a tenant still reports.
 */
export async function verifyLedger(
  store: Pick<EventStore, 'readAll' | 'headPosition'>,
  options: VerifyLedgerOptions = {},
): Promise<LedgerVerification> {
  const { tenantId, progress } = options;
  const pageSize = positiveInteger(options.pageSize ?? DEFAULT_PAGE_SIZE, 'pageSize');
  const progressEvery = positiveInteger(options.progressEvery ?? DEFAULT_PROGRESS_EVERY, 'progressEvery');
  const clock = options.clock ?? systemClock();
  const started = clock.now();
  const head = await store.headPosition();

  const entries = new Map<string, StreamEntry>();
  let streams = 0;
  let events = 0;
  let read = 0;
  let firstBreak: IntegrityBreak | null = null;

  for await (const page of readAllPages(store, { pageSize, upTo: head })) {
    await options.onPage?.(page);
    for (const event of page) {
      read += 1;
      let entry = entries.get(event.streamId);
      const checked = entry?.checked === true || tenantId === undefined || event.metadata.tenantId === tenantId;
      if (checked) {
        if (entry?.checked !== true) streams += 1;
        events += 1;
        const broken = verifyLink(entry ?? null, event);
        if (broken !== null && firstBreak === null) firstBreak = broken;
      }
      // Moved on to what is stored, checked or not: the next event links to it.
      if (entry === undefined) {
        entry = { revision: event.revision, hash: event.integrity.hash, checked };
        entries.set(event.streamId, entry);
      } else {
        entry.revision = event.revision;
        entry.hash = event.integrity.hash;
        entry.checked = checked;
      }
      if (progress !== undefined && read % progressEvery === 0) {
        const elapsedMs = Math.max(clock.now() - started, 1);
        progress({ events: read, position: event.position, head, ratePerSecond: (read * 1000) / elapsedMs });
      }
    }
  }
  return { intact: firstBreak === null, streams, events, firstBreak };
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
