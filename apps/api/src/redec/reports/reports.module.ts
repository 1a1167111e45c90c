import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { eventDispatcherProvider } from '../../event-dispatcher.provider';
import { ReadYourWrites } from '../../read-your-writes';
import { RequestCommands } from '../../request-commands';
import { bankingCalendarProvider } from '../banking-calendar.provider';
import { RenderReportProcessor } from './render-report.processor';
import { REPORT_LAYOUTS, reportLayoutsProvider } from './report-layouts.provider';
import { ReportsHttpController } from './reports.http.controller';
import { regulatoryReportsQueue, reportJobsFor } from './reports.queue';
import { ScheduledReportsProcessor } from './scheduled-reports.processor';
import { ScheduledReportsScheduler } from './scheduled-reports.scheduler';

/** The processor and what it reads, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({})
export class ReportsWorkerModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: ReportsWorkerModule,
      providers: [bankingCalendarProvider(config), reportLayoutsProvider(config), RenderReportProcessor, ScheduledReportsProcessor],
      exports: [RenderReportProcessor, ScheduledReportsProcessor, REPORT_LAYOUTS],
    };
  }
}

/** The routes, the dispatcher that asks for a render per request, and the report schedules; run in the API process. */
@Module({})
export class ReportsModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: ReportsModule,
      imports: [ReportsWorkerModule.forRoot(config)],
      controllers: [ReportsHttpController],
      providers: [ReadYourWrites, RequestCommands, eventDispatcherProvider(regulatoryReportsQueue.name, () => reportJobsFor), ScheduledReportsScheduler],
    };
  }
}
