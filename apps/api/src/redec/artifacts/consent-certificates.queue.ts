import type { RecordedEvent } from '@ledger/event-store';
import type { DispatchedJob, QueueDeclaration } from '@ledger/queues';
import type { ConsentGranted } from '@ledger/redec';
import { RenderCertificateJob, RenderCertificateProcessor } from './render-certificate.processor';

/** Electronic grants' certificates, rendered off the request path (docs/architecture.md, "Queues, webhooks and artifacts"). */
export const consentCertificatesQueue: QueueDeclaration<RenderCertificateJob, void> = {
  name: 'consent-certificates',
  processor: RenderCertificateProcessor,
  concurrency: 4,
  defaultJobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: false,
  },
};

/** The dispatcher's rule: one render job per grant whose artifact the service generates. */
export function certificateJobsFor(event: RecordedEvent): Array<DispatchedJob<RenderCertificateJob>> {
  if (event.type !== 'ConsentGranted' || !event.metadata.tenantId) return [];
  const grant = event.data as ConsentGranted['data'];
  if (grant.artifact.origin !== 'generated_pdf') return [];
  return [{ jobId: `certificate-${event.id}`, data: { tenantId: event.metadata.tenantId, redecConsentId: grant.redecConsentId } }];
}
