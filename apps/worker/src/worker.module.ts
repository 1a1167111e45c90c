import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { QueuesModule } from '@ledger/queues';
import { queueTelemetry } from '@ledger/tracing';
import { LedgerCoreModule } from '../../api/src/ledger-core.module';
import { ConsentCertificatesWorkerModule } from '../../api/src/redec/artifacts/consent-certificates.module';
import { RetentionErasureWorkerModule } from '../../api/src/retention/retention-erasure.module';
import { RightsDeadlinesWorkerModule } from '../../api/src/rights-requests/rights-deadlines.module';
import { ReportsWorkerModule } from '../../api/src/redec/reports/reports.module';
import { WebhookDeliveryWorkerModule } from '../../api/src/webhooks/webhooks-dispatch.module';
import { declaredQueues } from './declared-queues';

/**
 * The worker process: the declared queues' workers and nothing else (no
 * HTTP). It has the same core as the API (configuration, clock, event store,
 * blob store) and imports the modules that provide the declared processors,
 * as the API's root module does.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        LedgerCoreModule.forRoot(config),
        QueuesModule.forRoot({ queues: declaredQueues, runWorkers: true, telemetry: queueTelemetry() }),
        ConsentCertificatesWorkerModule,
        WebhookDeliveryWorkerModule,
        RetentionErasureWorkerModule,
        RightsDeadlinesWorkerModule,
        ReportsWorkerModule.forRoot(config),
      ],
    };
  }
}
