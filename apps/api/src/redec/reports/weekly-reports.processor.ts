import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CLOCK, Clock } from '@ledger/platform';
import { JobProcessor } from '@ledger/queues';
import { ReportLayouts, runWeeklyReports } from '@ledger/redec';
import { REPORT_LAYOUTS } from './report-layouts.provider';

/** The weekly run (and its catch-up at start): requests the week's RDC30 and RDC31 of every opted-in tenant, once each. */
@Injectable()
export class WeeklyReportsProcessor implements JobProcessor<Record<string, never>, { scheduledAt: number; requested: number }> {
  private readonly logger = new Logger('weekly-reports');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(REPORT_LAYOUTS) private readonly layouts: ReportLayouts,
  ) {}

  process(): Promise<{ scheduledAt: number; requested: number }> {
    // The service clock decides which week is due, so a shifted clock (LEDGER_CLOCK_OFFSET_MS) shifts the run with it.
    return runWeeklyReports({ store: this.store, layouts: this.layouts }, this.clock.now(), (message) => this.logger.warn(message));
  }
}
