import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { LedgerConfig } from '@ledger/platform';
import { ProjectionsModule } from '@ledger/projections';
import { QueuesModule } from '@ledger/queues';
import { queueTelemetry, tracingStarted } from '@ledger/tracing';
import { declaredQueues } from '../../worker/src/declared-queues';
import { ConfigurationsModule } from './configurations/configurations.module';
import { AuditModule } from './audit/audit.module';
import { ConsentDecisionsModule } from './consent-decisions/consent-decisions.module';
import { RightsRequestsModule } from './rights-requests/rights-requests.module';
import { PrivacyCenterModule } from './privacy-center/privacy-center.module';
import { ConsentsModule } from './consents/consents.module';
import { ConsoleModule } from './console/console.module';
import { CustomersModule } from './customers/customers.module';
import { EmbedModule } from './embed/embed.module';
import { HealthController } from './health/health.controller';
import { LedgerCoreModule } from './ledger-core.module';
import { LedgerLogModule } from './ledger-log/ledger-log.module';
import { MetricsModule } from './metrics/metrics.module';
import { PROJECTIONS } from './projections';
import { ProjectionThread } from './projection-thread';
import { RedecModule } from './redec/redec.module';
import { RetentionErasureModule } from './retention/retention-erasure.module';
import { RightsDeadlinesModule } from './rights-requests/rights-deadlines.module';
import { ReportsModule } from './redec/reports/reports.module';
import { TenantSettingsModule } from './tenant-settings/tenant-settings.module';
import { WebhookEndpointsModule } from './webhooks/endpoints/webhook-endpoints.module';
import { WebhooksDispatchModule } from './webhooks/webhooks-dispatch.module';

@Module({})
export class AppModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LedgerCoreModule.forRoot(config),
        CqrsModule.forRoot(),
        // The projections follow the store on a thread of their own (ProjectionThread); this thread's runner serves the waits and the operator's view.
        ProjectionsModule.forRoot({ projections: PROJECTIONS, autoPipelining: !tracingStarted(), follow: false }),
        QueuesModule.forRoot({ queues: declaredQueues, telemetry: queueTelemetry() }),
        CustomersModule,
        ConfigurationsModule.forRoot(config),
        RedecModule.forRoot(config),
        ConsentsModule,
        EmbedModule.forRoot(config),
        ConsentDecisionsModule.forRoot(config),
        RightsRequestsModule.forRoot(config),
        PrivacyCenterModule.forRoot(config),
        ConsoleModule,
        AuditModule,
        LedgerLogModule,
        TenantSettingsModule,
        ReportsModule.forRoot(config),
        WebhookEndpointsModule,
        WebhooksDispatchModule,
        RetentionErasureModule,
        RightsDeadlinesModule,
        MetricsModule,
      ],
      controllers: [HealthController],
      providers: [ProjectionThread],
    };
  }
}
