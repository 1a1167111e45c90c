import type { RecordedEvent } from './event-store.port';

/** A page a subscription is served: `fromStore` when it was read for it, so a short one means the store holds nothing more yet. */
export interface SubscriptionPage {
  events: RecordedEvent[];
  fromStore: boolean;
}

/** Every event in (from, last event's position], in order, as contiguous reads returned them. */
interface Run {
  from: number;
  events: RecordedEvent[];
  /** When a page was last served from it or added to it: the least recently used run goes first. */
  used: number;
}

/**
 * The events a store's subscriptions in this process last read, shared by
 * all of them (decision 0037, "Subscriptions share their reads").
 *
 * The service follows its store with nine subscriptions (six projections,
 * three dispatchers): each used to read and parse every event for itself.
 * Now the first to ask for a page reads it, and the others are served the
 * same events. Waiting at the store's head, they ask together; catching up
 * with a large ledger, they drift apart (a projection that writes more
 * falls behind), so the pages are kept as several runs, one per group of
 * subscriptions that read near each other.
 *
 * A run holds only what contiguous reads returned, so serving a page from it
 * is serving the read it stands for; it never guesses at what lies beyond.
 * The events are shared, so subscribers must not change them.
 */
export class RecentEvents {
  private runs: Run[] = [];
  private uses = 0;
  /** Counts the store's changes announced by changed(). */
  private version = 0;
  /** A read that found nothing past `position`: the version and the time it was made at. */
  private endKnown: { position: number; version: number; at: number } | undefined;
  /** Reads in flight, by the position they read after: subscriptions woken together ask for the same page. */
  private readonly reading = new Map<number, Promise<RecordedEvent[]>>();
  private storeReads = 0;

  /**
   * @param pageSize events per page, as the store reads them
   * @param pollIntervalMs how long "nothing more" is believed without a change announced: other
   *   processes' commits are announced by nobody, and the subscriptions' polls find them
   * @param runCapacity events held at most in one run
   * @param maxRuns runs held at most
   */
  constructor(
    private readonly pageSize: number,
    private readonly pollIntervalMs: number,
    private readonly runCapacity: number = 4 * pageSize,
    private readonly maxRuns: number = 4,
  ) {}

  /** Pages read from the store, rather than served from a read made for another subscription. */
  get reads(): number {
    return this.storeReads;
  }

  /** The store has changed (a commit, a notification): what was known about its end no longer holds. */
  changed(): void {
    this.version += 1;
  }

  /** The page after `after`, from what is held, else by `read` (at most pageSize events after the position). */
  pageAfter(after: number, read: (after: number) => RecordedEvent[]): SubscriptionPage;
  pageAfter(after: number, read: (after: number) => Promise<RecordedEvent[]>): Promise<SubscriptionPage>;
  pageAfter(after: number, read: (after: number) => RecordedEvent[] | Promise<RecordedEvent[]>): SubscriptionPage | Promise<SubscriptionPage> {
    const held = this.held(after);
    if (held !== undefined) return { events: held, fromStore: false };
    if (this.isKnownEnd(after)) return { events: [], fromStore: true };
    const inFlight = this.reading.get(after);
    if (inFlight !== undefined) return inFlight.then((events) => ({ events, fromStore: true }));
    this.storeReads += 1;
    const version = this.version;
    const result = read(after);
    if (!(result instanceof Promise)) {
      this.remember(after, result, version);
      return { events: result, fromStore: true };
    }
    const shared = result.then((events) => {
      this.remember(after, events, version);
      return events;
    });
    this.reading.set(after, shared);
    const forget = () => this.reading.delete(after);
    shared.then(forget, forget);
    return shared.then((events) => ({ events, fromStore: true }));
  }

  private held(after: number): RecordedEvent[] | undefined {
    const run = this.runs.find(({ from, events }) => from <= after && after < lastPosition(events));
    if (run === undefined) return undefined;
    run.used = ++this.uses;
    const { events } = run;
    // The first event past `after`: positions ascend, with gaps where a transaction rolled back.
    let low = 0;
    let high = events.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (events[middle].position > after) high = middle;
      else low = middle + 1;
    }
    return events.slice(low, low + this.pageSize);
  }

  private isKnownEnd(after: number): boolean {
    const { endKnown } = this;
    return (
      endKnown !== undefined &&
      endKnown.position === after &&
      endKnown.version === this.version &&
      performance.now() - endKnown.at < this.pollIntervalMs
    );
  }

  /** Keeps what a read of the page after `after`, begun at `version`, returned. */
  private remember(after: number, page: RecordedEvent[], version: number): void {
    // A short page ends where the store ended when it was read.
    if (page.length < this.pageSize) {
      const position = page.length === 0 ? after : lastPosition(page);
      this.endKnown = { position, version, at: performance.now() };
    }
    if (page.length === 0) return;
    const used = ++this.uses;
    const extended = this.runs.find(({ events }) => lastPosition(events) === after);
    if (extended === undefined) {
      this.runs.push({ from: after, events: page, used });
      if (this.runs.length > this.maxRuns) this.runs = this.runs.sort((a, b) => b.used - a.used).slice(0, this.maxRuns);
      return;
    }
    extended.used = used;
    extended.events = extended.events.concat(page);
    const excess = extended.events.length - this.runCapacity;
    if (excess > 0) {
      extended.from = extended.events[excess - 1].position;
      extended.events = extended.events.slice(excess);
    }
  }
}

function lastPosition(events: RecordedEvent[]): number {
  return events[events.length - 1].position;
}
