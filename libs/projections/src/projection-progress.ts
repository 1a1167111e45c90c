/** Where a set of projections stands, as whoever follows the store for them reports it. */
export interface ProgressReport {
  /** The last position every projection has absorbed (-1 before each has a cursor; Infinity when none is left to follow). */
  absorbed: number;
  /** Whether every projection has caught up with the store's head as it was when following began, and none is being rebuilt. */
  ready: boolean;
  /**
   * Whether a projection's model was lost (Redis emptied) and is being
   * rebuilt from the ledger (decision 0078): its reads refuse until it has
   * absorbed what the store held when the loss was found.
   */
  rebuilding: boolean;
}

/**
 * What a process knows of its projections' progress, and the waits on it: a
 * command's client reads its own write once `absorbed` passes the command's
 * position. The runner that follows the store reports here; so does the
 * API's projection thread, through its messages, for a runner that follows
 * on another thread.
 */
export class ProjectionProgress {
  private current: ProgressReport = { absorbed: -1, ready: false, rebuilding: false };
  private readonly waiters = new Set<() => void>();
  /** The last position of a command this process answered without waiting for the read model (see `answeredAhead`). */
  private answeredAheadTo = -1;
  /** Whether this process's connection to the read model's Redis is up (see `modelReachable`). */
  private reachable = true;

  get report(): ProgressReport {
    return this.current;
  }

  update(report: ProgressReport): void {
    if (report.absorbed === this.current.absorbed && report.ready === this.current.ready && report.rebuilding === this.current.rebuilding) return;
    this.current = report;
    this.recheckWaiters();
  }

  isReady(): boolean {
    return this.current.ready;
  }

  isRebuilding(): boolean {
    return this.current.rebuilding;
  }

  /**
   * This process's connection to the read model's Redis went down (false)
   * or came back (true). While it is down no projection can absorb anything,
   * so commands are answered without waiting for the model (decision 0079).
   */
  modelReachable(reachable: boolean): void {
    if (reachable === this.reachable) return;
    this.reachable = reachable;
    this.recheckWaiters();
  }

  isModelReachable(): boolean {
    return this.reachable;
  }

  /**
   * A command recorded `position` and was answered without waiting for the
   * read model, because the model was being rebuilt or out of reach. Until the model has
   * absorbed it, this process's reads of the model refuse rather than answer
   * without it (`holdsAnsweredCommands`): read-your-writes holds across a
   * rebuild, and the write's answer did not wait for one.
   */
  answeredAhead(position: number): void {
    this.answeredAheadTo = Math.max(this.answeredAheadTo, position);
  }

  /** Whether the model holds every command this process answered ahead of it. */
  holdsAnsweredCommands(): boolean {
    return this.current.absorbed >= this.answeredAheadTo;
  }

  /** Resolves true once `isReady()`, false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean> {
    return this.waitUntil(() => this.current.ready, timeoutMs);
  }

  /**
   * What a command that recorded `position` waits for before it answers:
   * true once every projection has absorbed it, or as soon as one is being
   * rebuilt or the model is out of reach, when the command is answered ahead
   * of the model (`answeredAhead`); false after `timeoutMs`. Never rejects.
   */
  async readableAfter(position: number, timeoutMs: number): Promise<boolean> {
    const readable = await this.waitUntil(() => this.current.absorbed >= position || this.current.rebuilding || !this.reachable, timeoutMs);
    if (readable && this.current.absorbed < position) this.answeredAhead(position);
    return readable;
  }

  /** Resolves true as soon as every projection has absorbed `position`, false after `timeoutMs`. Never rejects. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    return this.waitUntil(() => this.current.absorbed >= position, timeoutMs);
  }

  private recheckWaiters(): void {
    for (const check of [...this.waiters]) check();
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
