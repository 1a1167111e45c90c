import { Inject, Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { ReportKeyring } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection } from '@ledger/platform';
import { JobProcessor } from '@ledger/queues';
import { BankingCalendar, ReportLayouts, completeReport } from '@ledger/redec';
import { BANKING_CALENDAR } from '../banking-calendar.provider';
import { REPORT_LAYOUTS } from './report-layouts.provider';

export interface RenderReportJob {
  tenantId: string;
  reportId: string;
}

/** Renders a requested RDC30/RDC31 file (completeReport: safe to repeat). */
@Injectable()
export class RenderReportProcessor implements JobProcessor<RenderReportJob, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(BANKING_CALENDAR) private readonly calendar: BankingCalendar,
    @Inject(REPORT_LAYOUTS) private readonly layouts: ReportLayouts,
    private readonly identifiers: IdentifierProtection,
    private readonly reportKeys: ReportKeyring,
  ) {}

  async process(job: Job<RenderReportJob, void>): Promise<void> {
    const deps = { store: this.store, blobs: this.blobs, calendar: this.calendar, layouts: this.layouts, identifiers: this.identifiers, reportKeys: this.reportKeys };
    await completeReport(deps, job.data.tenantId, job.data.reportId, () => this.clock.now());
  }
}
