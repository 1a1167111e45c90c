/** Where a set of projections stands, as whoever follows the store for them reports it. */
export interface ProgressReport {
  /** The last position every projection has absorbed (-1 before each has a cursor; Infinity when none is left to follow). */
  absorbed: number;
  /** Whether every projection has caught up with the store's head as it was when following began. */
  ready: boolean;
}

/**
 * What a process knows of its projections' progress, and the waits on it: a
 * command's client reads its own write once `absorbed` passes the command's
 * position. The runner that follows the store reports here; so does the
 * API's projection thread, through its messages, for a runner that follows
 * on another thread.
 */
export class ProjectionProgress {
  private current: ProgressReport = { absorbed: -1, ready: false };
  private readonly waiters = new Set<() => void>();

  get report(): ProgressReport {
    return this.current;
  }

  update(report: ProgressReport): void {
    if (report.absorbed === this.current.absorbed && report.ready === this.current.ready) return;
    this.current = report;
    for (const check of [...this.waiters]) check();
  }

  isReady(): boolean {
    return this.current.ready;
  }

  /** Resolves true once `isReady()`, false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean> {
    return this.waitUntil(() => this.current.ready, timeoutMs);
  }

  /** Resolves true as soon as every projection has absorbed `position`, false after `timeoutMs`. Never rejects. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    return this.waitUntil(() => this.current.absorbed >= position, timeoutMs);
  }

  private waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const check = () => {
        if (condition()) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
    });
  }
}
