import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { JobProcessor } from '@ledger/queues';
import { REPORT_SCHEDULES, ReportLayouts, ReportSchedule, runScheduledReports } from '@ledger/redec';
import { REPORT_LAYOUTS } from './report-layouts.provider';

/** A run of a schedule (and its catch-up at start): requests the period's files of every opted-in tenant, once each. */
@Injectable()
export class ScheduledReportsProcessor implements JobProcessor<{ schedule: ReportSchedule['name'] }, { scheduledAt: number; requested: number }> {
  private readonly logger = new Logger('scheduled-reports');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(REPORT_LAYOUTS) private readonly layouts: ReportLayouts,
  ) {}

  process(job: Job<{ schedule: ReportSchedule['name'] }>): Promise<{ scheduledAt: number; requested: number }> {
    const schedule = REPORT_SCHEDULES.find((candidate) => candidate.name === job.data.schedule);
    if (!schedule) throw new Error(`no report schedule named ${String(job.data.schedule)}`);
    // The service clock decides which period is due, so a shifted clock (LEDGER_CLOCK_OFFSET_MS) shifts the run with it.
    return runScheduledReports({ store: this.store, layouts: this.layouts }, schedule, this.clock.now(), (message) => this.logger.warn(message));
  }
}
