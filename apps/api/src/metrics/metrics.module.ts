import { Module } from '@nestjs/common';
import { DeliveryMetricsModule } from './delivery-metrics.module';
import { MetricsCollector } from './metrics.collector';
import { MetricsController } from './metrics.controller';
import { METRICS_REGISTRY, metricsRegistryProvider } from './metrics-registry.provider';

/**
 * GET /metrics of the API process: the instance's ledger_* families (read
 * from Redis, whichever process did the work) and this process's own.
 * QueueRuntime and ProjectionRunner come from the global QueuesModule and
 * ProjectionsModule.
 */
@Module({
  imports: [DeliveryMetricsModule],
  controllers: [MetricsController],
  providers: [MetricsCollector, metricsRegistryProvider],
  exports: [METRICS_REGISTRY],
})
export class MetricsModule {}
