// Started by queues.module.spec.ts as a child process: a worker for one test
// queue that prints every job it runs, so the test can stage a Redis outage
// and check that the process survives it and resumes.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LEDGER_CONFIG, loadConfig } from '@ledger/platform';
import type { Job } from 'bullmq';
import { JobProcessor, QueuesModule } from '../index';

class PrintingProcessor implements JobProcessor<{ n: number }, void> {
  async process(job: Job<{ n: number }, void>): Promise<void> {
    process.stdout.write(`processed ${job.data.n}\n`);
  }
}

@Module({})
class OutageWorkerModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext({
    module: OutageWorkerModule,
    global: true,
    imports: [QueuesModule.forRoot({ queues: [{ name: 'outage', processor: PrintingProcessor }], runWorkers: true })],
    providers: [{ provide: LEDGER_CONFIG, useValue: loadConfig() }, PrintingProcessor],
    exports: [LEDGER_CONFIG],
  });
  app.enableShutdownHooks(['SIGTERM'], { useProcessExit: true });
  process.stdout.write('outage worker started\n');
}

void main();
