import type { QueueDeclaration } from '@ledger/queues';
import { consentCertificatesQueue } from '../../api/src/redec/artifacts/consent-certificates.queue';
import { retentionErasureQueue } from '../../api/src/retention/retention-erasure.queue';
import { rightsDeadlinesQueue } from '../../api/src/rights-requests/rights-deadlines.queue';
import { regulatoryReportsQueue } from '../../api/src/redec/reports/reports.queue';
import { scheduledReportsQueue } from '../../api/src/redec/reports/scheduled-reports.queue';
import { webhookDeliveriesQueue } from '../../api/src/webhooks/webhook-deliveries.queue';

/**
 * Every queue of the service, in the one list that both processes read:
 * apps/api (producers, and workers unless LEDGER_WORKERS=external) and
 * apps/worker. A queue missing from here has no worker anywhere. It lives
 * above the libraries because it names their declarations; libs/queues cannot
 * import them without a dependency cycle.
 */
export const declaredQueues: readonly QueueDeclaration[] = [
  consentCertificatesQueue as QueueDeclaration,
  webhookDeliveriesQueue as QueueDeclaration,
  retentionErasureQueue as QueueDeclaration,
  regulatoryReportsQueue as QueueDeclaration,
  scheduledReportsQueue as QueueDeclaration,
  rightsDeadlinesQueue as QueueDeclaration,
];
