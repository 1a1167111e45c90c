import { Worker } from 'node:worker_threads';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LEDGER_CONFIG, LedgerConfig, ledgerLocations, retryBackoffMs, settlesWithin, workerEntry } from '@ledger/platform';
import { ProgressReport, ProjectionRunner } from '@ledger/projections';
import type { FromProjectionThread, ProjectionThreadData, ToProjectionThread } from './projection-thread.messages';

/** How long shutdown waits for the thread to finish its batch and close its connections before ending it. */
const STOP_GRACE_MS = 10_000;

/**
 * The thread's young generation, where a batch's events and documents live
 * and die: 12 MB instead of V8's 48 (decision 0089). A catch-up keeps it
 * full, so V8's default held about 45 MB more of the service's memory while
 * the catch-up ran and after it, for a catch-up about 6% faster.
 */
const PROJECTION_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 };

/** What is known of a thread that died: nothing, until its successor reports. */
const NOT_FOLLOWING: ProgressReport = { absorbed: -1, ready: false, rebuilding: false };

/**
 * The thread the API's projections follow the store on (decision 0077), run
 * from the built `projections.thread.js`. Its progress reports feed the
 * runner's `progress`, which commands wait on to read their own writes and
 * /health/ready reads; its log lines come out of this thread's logger. A
 * thread that dies is started again: it resumes from the checkpoints in Redis.
 */
@Injectable()
export class ProjectionThread implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Projections');
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private restart: NodeJS.Timeout | undefined;

  constructor(
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    private readonly runner: ProjectionRunner,
  ) {}

  onApplicationBootstrap(): void {
    this.start(0);
  }

  /** After the HTTP server has closed, so no request is still waiting for a position. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    worker.postMessage({ kind: 'stop' } satisfies ToProjectionThread);
    const ended = await settlesWithin(this.exited, STOP_GRACE_MS);
    if (!ended) await worker.terminate();
  }

  private start(failures: number): void {
    const workerData: ProjectionThreadData = ledgerLocations(this.config);
    const worker = new Worker(workerEntry(__dirname, 'projections.thread.js'), { workerData, resourceLimits: PROJECTION_THREAD_LIMITS });
    const startedAt = Date.now();
    worker.on('message', (message: FromProjectionThread) => {
      if (message.kind === 'progress') this.runner.progress.update(message.report);
      else if (message.level === 'error') this.logger.error(message.message);
      else this.logger.warn(message.message);
    });
    worker.on('error', (error) => this.logger.error(`the projection thread failed: ${error.stack ?? error.message}`));
    this.exited = new Promise((done) =>
      worker.once('exit', (code) => {
        this.worker = undefined;
        done();
        if (this.stopping) return;
        // What the dead thread last reported no longer moves: commands wait and /health/ready says catching up until the next one reports.
        this.runner.progress.update(NOT_FOLLOWING);
        // A thread that ran for a minute before it died starts again after the shortest wait; one that keeps dying at its start waits longer each time.
        const next = Date.now() - startedAt > 60_000 ? 0 : failures + 1;
        this.logger.error(`the projection thread ended (exit code ${code}); starting it again`);
        this.restart = setTimeout(() => this.start(next), retryBackoffMs(next));
      }),
    );
    this.worker = worker;
  }
}
