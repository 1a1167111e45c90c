/** What counting one request says. */
export interface BudgetVerdict {
  allowed: boolean;
  /** Whole seconds until the window ends and the budget is whole again (at least 1). */
  retryAfterSeconds: number;
}

/** One budget's count in the current window. */
interface Budget {
  /**
   * The count Redis answered at the last flush (every instance's requests,
   * this one's included), plus this instance's requests of a flush still in
   * flight: they are spent while Redis adds them up.
   */
  counted: number;
  /** This instance's requests not yet sent to Redis. */
  pending: number;
}

/** What a flush sends: per budget, the requests to add. */
export type BudgetIncrements = Map<string, number>;

/**
 * Fixed one-minute windows of request budgets, counted by this instance and
 * added up across instances in Redis by periodic flushes (rate-limit.ts).
 * Pure bookkeeping, the clock passed in: a request is decided in memory from
 * the last count Redis answered plus this instance's requests since, so no
 * request waits for Redis. Across instances a budget can be overspent by
 * what the other instances admit between two flushes
 * (docs/decisions/0037-request-path-caches.md).
 */
export class RequestBudgets {
  private window = -1;
  private budgets = new Map<string, Budget>();

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
  ) {}

  /** The window a time falls in; the Redis counters are named after it so every instance counts the same one. */
  windowOf(now: number): number {
    return Math.floor(now / this.windowMs);
  }

  /** Counts one request against `budget` and says whether it is within it. */
  spend(budget: string, now: number): BudgetVerdict {
    const verdict = this.check(budget, now);
    if (verdict.allowed) this.entryOf(budget).pending += 1;
    return verdict;
  }

  /** Whether `budget` has room for one more request, counting nothing. */
  check(budget: string, now: number): BudgetVerdict {
    this.roll(now);
    const entry = this.budgets.get(budget);
    const retryAfterSeconds = Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
    return { allowed: entry === undefined || entry.counted + entry.pending < this.perWindow, retryAfterSeconds };
  }

  /**
   * The requests counted here and not yet flushed, moved from pending to
   * counted while the flush is in flight (a request decided meanwhile still
   * weighs them); `settle` or `restore` them after the flush.
   */
  takePending(now: number): { window: number; increments: BudgetIncrements } {
    this.roll(now);
    const increments: BudgetIncrements = new Map();
    for (const [budget, entry] of this.budgets) {
      if (entry.pending === 0) continue;
      increments.set(budget, entry.pending);
      entry.counted += entry.pending;
      entry.pending = 0;
    }
    return { window: this.window, increments };
  }

  /** Redis's totals after the flush of `window`, each including every instance's requests, and so the flush's own. */
  settle(window: number, totals: Map<string, number>): void {
    if (window !== this.window) return;
    for (const [budget, total] of totals) {
      const entry = this.budgets.get(budget);
      if (entry) entry.counted = Math.max(entry.counted, total);
    }
  }

  /** A flush that failed: its increments are pending again, for the next one, and still spent. */
  restore(window: number, increments: BudgetIncrements): void {
    if (window !== this.window) return;
    for (const [budget, count] of increments) {
      const entry = this.budgets.get(budget);
      if (!entry) continue;
      entry.counted -= count;
      entry.pending += count;
    }
  }

  /** Forgets every count: while Redis cannot add them up, requests are not limited (fail open). */
  forget(): void {
    this.budgets.clear();
  }

  private entryOf(budget: string): Budget {
    let entry = this.budgets.get(budget);
    if (!entry) this.budgets.set(budget, (entry = { counted: 0, pending: 0 }));
    return entry;
  }

  private roll(now: number): void {
    const window = this.windowOf(now);
    if (window === this.window) return;
    this.window = window;
    this.budgets = new Map();
  }
}
