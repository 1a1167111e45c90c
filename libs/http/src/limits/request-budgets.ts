/** What counting one request says. */
export interface BudgetVerdict {
  allowed: boolean;
  /** Whole seconds until the window ends and the budget is whole again (at least 1). */
  retryAfterSeconds: number;
}

/** One budget's count in the current window. */
interface Budget {
  /** The requests this instance admitted. */
  own: number;
  /** The requests the other instances admitted, as of the last total Redis answered. */
  others: number;
  /** `own` as last reported to Redis; a budget is reported again once it differs. */
  reported: number;
}

/**
 * What a flush sends: this instance's count of each budget whose count
 * changed since it was last reported, in one window and one generation.
 */
export interface BudgetReport {
  window: number;
  /** Bumped by `forget`: counts of an earlier generation are another instance's as far as Redis is concerned. */
  generation: number;
  counts: Map<string, number>;
}

/**
 * Fixed one-minute windows of request budgets, counted by this instance and
 * added up across instances in Redis by periodic flushes (rate-limit.ts).
 * Pure bookkeeping, the clock passed in: a request is decided in memory from
 * the other instances' requests as of the last flush plus this instance's
 * own, so no request waits for Redis. Across instances a budget can be
 * overspent by what the other instances admit between two flushes
 * (docs/decisions/0037-request-path-caches.md).
 *
 * A flush reports absolute counts (this instance's total so far), never
 * increments: Redis keeps each instance's count apart and answers their sum.
 * A flush whose answer was lost (a timeout after Redis applied it) is then
 * harmless to send again, where an increment sent twice would spend the
 * budget twice.
 */
export class RequestBudgets {
  private window = -1;
  private generation = 0;
  private budgets = new Map<string, Budget>();

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
  ) {}

  /** The window a time falls in; the Redis counters are named after it so every instance counts the same one. */
  windowOf(now: number): number {
    return Math.floor(now / this.windowMs);
  }

  /** Counts one request against `budget` and says whether it is within it; `limit` for a budget smaller than the others. */
  spend(budget: string, now: number, limit = this.perWindow): BudgetVerdict {
    const verdict = this.check(budget, now, limit);
    if (verdict.allowed) this.entryOf(budget).own += 1;
    return verdict;
  }

  /** Whether `budget` has room for one more request, counting nothing. */
  check(budget: string, now: number, limit = this.perWindow): BudgetVerdict {
    this.roll(now);
    const entry = this.budgets.get(budget);
    const retryAfterSeconds = Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
    return { allowed: entry === undefined || entry.own + entry.others < limit, retryAfterSeconds };
  }

  /** This instance's counts that Redis has not been told of yet. Nothing changes until `settle`: a flush that fails is simply taken again. */
  report(now: number): BudgetReport {
    this.roll(now);
    const counts = new Map<string, number>();
    for (const [budget, entry] of this.budgets) if (entry.own !== entry.reported) counts.set(budget, entry.own);
    return { window: this.window, generation: this.generation, counts };
  }

  /** Redis's totals for a report it stored: every instance's count of each budget, the report's own included. */
  settle(report: BudgetReport, totals: Map<string, number>): void {
    if (report.window !== this.window || report.generation !== this.generation) return;
    for (const [budget, total] of totals) {
      const entry = this.budgets.get(budget);
      const reported = report.counts.get(budget);
      if (!entry || reported === undefined) continue;
      entry.reported = reported;
      entry.others = Math.max(entry.others, total - reported);
    }
  }

  /**
   * Forgets every count: while Redis cannot add them up, requests are not
   * limited (fail open). The next generation counts from zero under a name of
   * its own, so it does not overwrite the counts this instance reported before.
   */
  forget(): void {
    if (this.budgets.size > 0) this.generation += 1;
    this.budgets.clear();
  }

  private entryOf(budget: string): Budget {
    let entry = this.budgets.get(budget);
    if (!entry) this.budgets.set(budget, (entry = { own: 0, others: 0, reported: 0 }));
    return entry;
  }

  private roll(now: number): void {
    const window = this.windowOf(now);
    if (window === this.window) return;
    this.window = window;
    this.budgets = new Map();
  }
}
