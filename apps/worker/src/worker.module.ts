import { DynamicModule, Module } from '@nestjs/common';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { QueuesModule } from '@ledger/queues';
import { declaredQueues } from './declared-queues';

/**
 * The worker process: the declared queues' workers and nothing else (no
 * HTTP). The modules that provide the declared processors are imported here,
 * as they are by the API's root module.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: WorkerModule,
      // Global so that every library module can inject LEDGER_CONFIG.
      global: true,
      imports: [QueuesModule.forRoot({ queues: declaredQueues, runWorkers: true })],
      providers: [{ provide: LEDGER_CONFIG, useValue: config }],
      exports: [LEDGER_CONFIG],
    };
  }
}
