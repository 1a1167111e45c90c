import './tracing';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, createJsonLogger } from '@ledger/http';
import { createMetricsRegistry, startMetricsServer } from '@ledger/metrics';
import { buildInfo, loadConfig } from '@ledger/platform';
import { traceLogFields } from '@ledger/tracing';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadConfig();
  // The service's logger: the same JSON lines, scrubbing and redaction as apps/api.
  const logger = new JsonLogger(createJsonLogger({ level: config.logLevel, mixin: traceLogFields() }));
  // abortOnError false: a startup error reaches the handler below (message, exit 1) instead of process.abort().
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { abortOnError: false, logger });
  // On SIGTERM/SIGINT Nest runs the shutdown hooks (workers drain, then
  // queues and connections close); useProcessExit then exits with status 0
  // instead of re-raising the signal.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  // The worker has no API to carry /metrics: a port of its own, when asked for (docs/operations.md).
  if (config.workerMetricsPort !== undefined) {
    await startMetricsServer(createMetricsRegistry(buildInfo()), { port: config.workerMetricsPort, host: config.host });
    new Logger('Worker').log(`Metrics served at http://${config.host}:${config.workerMetricsPort}/metrics`);
  }
  new Logger('Worker').log('Worker process ready');
}

main().catch((error: unknown) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
