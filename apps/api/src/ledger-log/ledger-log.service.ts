import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { EVENT_STORE, EventStore, LedgerLog, StoredCheckpoint } from '@ledger/event-store';
import { LogIdentity, WitnessOutcome, issueCheckpoint, logIdentity, witnessCheckpoint } from '@ledger/ledger-log';
import { CLOCK, Clock, LEDGER_CONFIG, LedgerConfig, unavailable } from '@ledger/platform';
import { METRICS_REGISTRY } from '../metrics/metrics-registry.provider';

export const WITNESS_REFUSALS_METRIC = 'ledger_witness_refusals_total';

/**
 * The ledger's checkpoints (decision 0058): one issued when the tree has
 * grown, at most every LEDGER_CHECKPOINT_INTERVAL_MS, and on demand (a proof
 * or bundle of an event no checkpoint covers yet); each new one sent to the
 * witnesses of LEDGER_WITNESSES, whose cosignatures are kept with it. Every
 * API process runs this; the first checkpoint kept for a size stands.
 */
@Injectable()
export class LedgerLogService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly identity: LogIdentity;
  private readonly logger = new Logger('LedgerLog');
  private readonly refusals: Counter;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.identity = logIdentity({ origin: config.logOrigin, signingKey: config.logSigningKey, previousVerifierKeys: config.logPreviousVerifierKeys });
    this.refusals = new Counter({
      name: WITNESS_REFUSALS_METRIC,
      help: "Checkpoints a witness refused to cosign: a fork of the log it saw, or a checkpoint it could not accept. Each is logged as an error; investigate before anything else.",
      labelNames: ['witness'],
      registers: [registry],
    });
  }

  /** The store's tree; 503 on a store that keeps none (EventStoreDB). */
  get log(): LedgerLog {
    if (this.store.log === undefined) throw unavailable('ledger_log_unavailable', 'this event store keeps no Merkle tree: the verifiable ledger needs the SQLite or PostgreSQL store');
    return this.store.log;
  }

  /** The latest checkpoint, a new one issued first when none includes the leaf `leafIndex` (or none was issued yet). */
  async checkpointIncluding(leafIndex = -1): Promise<StoredCheckpoint> {
    const latest = await this.log.latestCheckpoint();
    if (latest !== undefined && latest.size > leafIndex) return latest;
    return issueCheckpoint(this.log, this.identity, this.clock.now());
  }

  onApplicationBootstrap(): void {
    if (this.store.log === undefined) return;
    void this.checkOrigin();
    this.timer = setInterval(() => this.tick(), this.config.checkpointIntervalMs);
    this.timer.unref();
  }

  /**
   * The origin is the log's name and must never change: a process started
   * with another (LEDGER_LOG_ORIGIN, or LEDGER_PUBLIC_URL's host, unset and so
   * taken from its own port) would sign checkpoints no auditor's key opens.
   */
  private async checkOrigin(): Promise<void> {
    try {
      const latest = await this.store.log!.latestCheckpoint();
      const origin = latest?.note.slice(0, latest.note.indexOf('\n'));
      if (origin !== undefined && origin !== this.identity.origin) {
        this.logger.error(`this process signs checkpoints as ${this.identity.origin}, but the ledger's are ${origin}: set LEDGER_LOG_ORIGIN (or LEDGER_PUBLIC_URL) as the other processes have it`);
      }
    } catch (error) {
      this.logger.warn(`the ledger's checkpoints could not be read: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One round at a time: a slow witness delays the next checkpoint rather than piling rounds up. */
  private tick(): void {
    if (this.running !== undefined) return;
    this.running = this.issueAndWitness()
      .catch((error: Error) => this.logger.warn(`no checkpoint this round: ${error.message}`))
      .finally(() => (this.running = undefined));
  }

  private async issueAndWitness(): Promise<void> {
    const checkpoint = await issueCheckpoint(this.log, this.identity, this.clock.now());
    const outcomes = await Promise.all(this.config.witnesses.map((witness) => witnessCheckpoint(this.log, checkpoint, witness)));
    for (const outcome of outcomes) this.report(outcome, checkpoint.size);
  }

  private report(outcome: WitnessOutcome, size: number): void {
    switch (outcome.outcome) {
      case 'cosigned':
      case 'already':
        return;
      case 'unreachable':
        this.logger.warn(`witness ${outcome.witness} unreachable for the checkpoint of size ${size}: ${outcome.reason}`);
        return;
      case 'conflict':
        this.refusals.inc({ witness: outcome.witness });
        this.logger.error(`witness ${outcome.witness} refused the checkpoint of size ${size}: it cosigned a tree of ${outcome.witnessSize} leaves, which this log's does not extend`);
        return;
      case 'refused':
        this.refusals.inc({ witness: outcome.witness });
        this.logger.error(`witness ${outcome.witness} refused the checkpoint of size ${size} (HTTP ${outcome.status}): ${outcome.reason}`);
        return;
    }
  }
}
