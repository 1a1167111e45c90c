import type { RecordedEvent } from '@ledger/event-store';
import type { DispatchedJob, QueueDeclaration } from '@ledger/queues';
import type { ReportRequested } from '@ledger/redec';
import { RenderReportJob, RenderReportProcessor } from './render-report.processor';

/** RDC30/RDC31 files, rendered off the request path: a report reads the tenant's REDEC history. */
export const regulatoryReportsQueue: QueueDeclaration<RenderReportJob, void> = {
  name: 'regulatory-reports',
  processor: RenderReportProcessor,
  concurrency: 1,
  defaultJobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: false,
  },
};

/** The dispatcher's rule: one render job per report requested. */
export function reportJobsFor(event: RecordedEvent): Array<DispatchedJob<RenderReportJob>> {
  if (event.type !== 'ReportRequested' || !event.metadata.tenantId) return [];
  const { reportId } = event.data as ReportRequested['data'];
  return [{ jobId: `report-${event.id}`, data: { tenantId: event.metadata.tenantId, reportId } }];
}
