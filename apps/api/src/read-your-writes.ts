import { Injectable, Logger } from '@nestjs/common';
import { ProjectionRunner, readModelRebuilding, readModelUnavailable } from '@ledger/projections';
import { unavailable } from '@ledger/platform';

/** docs/decisions/0005-read-your-writes.md */
export const READ_YOUR_WRITES_TIMEOUT_MS = 5_000;

@Injectable()
export class ReadYourWrites {
  private readonly logger = new Logger('ReadYourWrites');

  constructor(private readonly projections: ProjectionRunner) {}

  /**
   * Waits until the read model has processed `position`, so the next read
   * sees this command's facts. Past the bound the answer goes out anyway:
   * the fact is committed, and an error would only make the client retry it.
   */
  async waitFor(position: number | null): Promise<void> {
    if (position === null) return;
    // A model being rebuilt after a loss may take minutes to reach this write, and one out of reach none: the answer goes
    // out as soon as either is known, and the model's reads refuse (503) until it holds the write (decisions 0078, 0079).
    const projected = await this.projections.progress.readableAfter(position, READ_YOUR_WRITES_TIMEOUT_MS);
    if (!projected) this.logger.warn(`read model did not reach position ${position} within ${READ_YOUR_WRITES_TIMEOUT_MS} ms`);
  }

  /**
   * Waits until the read model has processed `position`, and refuses
   * (503) past the bound: for a rule that reads the read model, an answer
   * taken on a model that lags behind would not be a decision on the facts.
   */
  async caughtUpWith(position: number): Promise<void> {
    if (this.projections.progress.isRebuilding()) throw readModelRebuilding();
    if (!this.projections.progress.isModelReachable()) throw readModelUnavailable();
    if (!(await this.projections.waitForPosition(position, READ_YOUR_WRITES_TIMEOUT_MS))) {
      throw unavailable('read_model_behind', 'The read model has not caught up with the ledger; retry after the number of seconds in Retry-After.', { retryAfterSeconds: 1 });
    }
  }
}
